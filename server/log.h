// A small line logger to stderr (Debian 12's abseil has no absl/log): each
// line is "<UTC time> <message>", written whole, safe from any thread.
#pragma once

#include <string_view>

#include "absl/strings/str_cat.h"

namespace kbench::server {

void LogLine(std::string_view message);

template <typename... Args>
void Log(const Args&... args) {
  LogLine(absl::StrCat(args...));
}

}  // namespace kbench::server
