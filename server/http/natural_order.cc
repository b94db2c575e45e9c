#include "server/http/natural_order.h"

#include <cctype>
#include <cstddef>

namespace kbench::server::http {
namespace {

bool IsDigit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

// The run of digits at `s[i]`, leading zeros skipped: [begin, end).
struct Digits {
  size_t begin, end;
};
Digits DigitsAt(std::string_view s, size_t i) {
  size_t end = i;
  while (end < s.size() && IsDigit(s[end])) ++end;
  size_t begin = i;
  while (begin + 1 < end && s[begin] == '0') ++begin;
  return {begin, end};
}

}  // namespace

bool NaturalLess(std::string_view a, std::string_view b) {
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (IsDigit(a[i]) && IsDigit(b[j])) {
      const Digits x = DigitsAt(a, i), y = DigitsAt(b, j);
      const size_t x_len = x.end - x.begin, y_len = y.end - y.begin;
      if (x_len != y_len) return x_len < y_len;  // more significant digits: larger
      const int order = a.substr(x.begin, x_len).compare(b.substr(y.begin, y_len));
      if (order != 0) return order < 0;
      const size_t x_run = x.end - i, y_run = y.end - j;  // with leading zeros
      if (x_run != y_run) return x_run < y_run;
      i = x.end;
      j = y.end;
      continue;
    }
    if (a[i] != b[j]) return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[j]);
    ++i;
    ++j;
  }
  return a.size() - i < b.size() - j;
}

}  // namespace kbench::server::http
