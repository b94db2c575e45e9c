// A small line logger to stderr (Debian 12's abseil has no absl/log): each
// line is "<UTC time> <prefix><message>", written whole, safe from any
// thread. Workers share the server's stderr and set a prefix naming them.
// Text a user supplied (a label, a name) goes into a line only through
// Quoted, so that it can neither forge a line nor hide in one.
#pragma once

#include <string>
#include <string_view>

#include "absl/strings/str_cat.h"

namespace kbench::server {

void LogLine(std::string_view message);

// `text` in double quotes, printable ASCII as it is, '"' and '\\' escaped
// with a backslash, newline, carriage return and tab as \n \r \t, and every
// other byte (control characters, DEL, anything outside ASCII) as \xNN.
std::string Quoted(std::string_view text);

// Starts every later line with `prefix`, e.g. "worker 0: ".
void SetLogPrefix(std::string prefix);

template <typename... Args>
void Log(const Args&... args) {
  LogLine(absl::StrCat(args...));
}

}  // namespace kbench::server
