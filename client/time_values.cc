#include "client/time_values.h"

#include <charconv>
#include <chrono>
#include <ctime>

#include "client/flag_values.h"

namespace kbench::client {
namespace {

absl::Status BadTime(std::string_view text) {
  return BadValue(text,
                  "is not a time; use a span back from now (30m, 12h, 7d) or "
                  "a local date and time (2024-05-01, 2024-05-01T14:30, with "
                  "Z for UTC)");
}

// Reads `digits` digits at text[at], or -1.
int Digits(std::string_view text, size_t at, size_t digits) {
  if (at + digits > text.size()) return -1;
  int value = 0;
  const char* begin = text.data() + at;
  auto [end, error] = std::from_chars(begin, begin + digits, value);
  return error == std::errc() && end == begin + digits ? value : -1;
}

}  // namespace

int64_t NowUnixMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

absl::StatusOr<int64_t> ParseTime(std::string_view text, int64_t now_unix_ms) {
  if (text.size() >= 2 && text.find('-') == std::string_view::npos) {
    int64_t amount = 0;
    const char* end = text.data() + text.size() - 1;
    auto [ptr, error] = std::from_chars(text.data(), end, amount);
    int64_t unit_ms = 0;
    switch (text.back()) {
      case 's':
        unit_ms = 1000;
        break;
      case 'm':
        unit_ms = 60 * 1000;
        break;
      case 'h':
        unit_ms = 3600 * 1000;
        break;
      case 'd':
        unit_ms = 24 * 3600 * 1000;
        break;
      default:
        break;
    }
    if (error != std::errc() || ptr != end || unit_ms == 0 || amount < 0) {
      return BadTime(text);
    }
    return now_unix_ms - amount * unit_ms;
  }
  const bool utc = !text.empty() && text.back() == 'Z';
  const std::string_view body = utc ? text.substr(0, text.size() - 1) : text;
  std::tm tm{};
  tm.tm_year = Digits(body, 0, 4) - 1900;
  tm.tm_mon = Digits(body, 5, 2) - 1;
  tm.tm_mday = Digits(body, 8, 2);
  if (tm.tm_year < 70 || tm.tm_mon < 0 || tm.tm_mday < 1 || body[4] != '-' || body[7] != '-') {
    return BadTime(text);
  }
  if (body.size() > 10) {
    if ((body[10] != 'T' && body[10] != ' ') || body.size() < 16 || body[13] != ':' ||
        (tm.tm_hour = Digits(body, 11, 2)) < 0 || (tm.tm_min = Digits(body, 14, 2)) < 0) {
      return BadTime(text);
    }
    if (body.size() > 16 &&
        (body.size() != 19 || body[16] != ':' || (tm.tm_sec = Digits(body, 17, 2)) < 0)) {
      return BadTime(text);
    }
  }
  tm.tm_isdst = -1;
  const std::time_t seconds = utc ? timegm(&tm) : std::mktime(&tm);
  if (seconds == -1) return BadTime(text);
  return int64_t{seconds} * 1000;
}

std::string FormatLocalTime(int64_t unix_ms) {
  if (unix_ms == 0) return "-";
  const std::time_t seconds = unix_ms / 1000;
  std::tm local{};
  localtime_r(&seconds, &local);
  char text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%d %H:%M:%S", &local);
  return text;
}

}  // namespace kbench::client
