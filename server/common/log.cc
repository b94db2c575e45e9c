#include "server/common/log.h"

#include <chrono>
#include <cstdio>
#include <ctime>
#include <mutex>
#include <string>
#include <utility>

namespace kbench::server {
namespace {

std::mutex& LogMutex() {
  static std::mutex mu;
  return mu;
}

std::string& Prefix() {
  static std::string prefix;
  return prefix;
}

}  // namespace

void SetLogPrefix(std::string prefix) {
  std::lock_guard lock(LogMutex());
  Prefix() = std::move(prefix);
}

std::string Quoted(std::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (byte >= 0x20 && byte < 0x7f) {
          out += c;
        } else {
          constexpr char kHex[] = "0123456789abcdef";
          out += "\\x";
          out += kHex[byte >> 4];
          out += kHex[byte & 0xf];
        }
    }
  }
  return out + "\"";
}

void LogLine(std::string_view message) {
  const auto now = std::chrono::system_clock::now();
  const std::time_t seconds = std::chrono::system_clock::to_time_t(now);
  const auto millis =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm utc;
  gmtime_r(&seconds, &utc);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%S", &utc);
  std::lock_guard lock(LogMutex());
  std::fprintf(stderr, "%s.%03dZ %s%.*s\n", stamp, int(millis), Prefix().c_str(),
               int(message.size()), message.data());
}

}  // namespace kbench::server
