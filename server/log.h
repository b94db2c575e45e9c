// A small line logger to stderr (Debian 12's abseil has no absl/log): each
// line is "<UTC time> <prefix><message>", written whole, safe from any
// thread. Workers share the server's stderr and set a prefix naming them.
#pragma once

#include <string>
#include <string_view>

#include "absl/strings/str_cat.h"

namespace kbench::server {

void LogLine(std::string_view message);

// Starts every later line with `prefix`, e.g. "worker 0: ".
void SetLogPrefix(std::string prefix);

template <typename... Args>
void Log(const Args&... args) {
  LogLine(absl::StrCat(args...));
}

}  // namespace kbench::server
