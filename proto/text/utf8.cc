#include "proto/text/utf8.h"

#include <algorithm>

namespace kbench::proto::text {
namespace {

constexpr std::string_view kReplacement = "\xef\xbf\xbd";  // U+FFFD

// The length of the well-formed sequence at text[i], or 0 when none starts
// there.
size_t SequenceAt(std::string_view text, size_t i) {
  const auto b = static_cast<unsigned char>(text[i]);
  size_t length = 0;
  unsigned char low = 0x80, high = 0xbf;  // the range of the second byte
  if (b < 0x80) {
    return 1;
  } else if (b >= 0xc2 && b <= 0xdf) {
    length = 2;
  } else if (b >= 0xe0 && b <= 0xef) {
    length = 3;
    if (b == 0xe0) low = 0xa0;
    if (b == 0xed) high = 0x9f;
  } else if (b >= 0xf0 && b <= 0xf4) {
    length = 4;
    if (b == 0xf0) low = 0x90;
    if (b == 0xf4) high = 0x8f;
  } else {
    return 0;
  }
  if (i + length > text.size()) return 0;
  for (size_t k = 1; k < length; ++k) {
    const auto c = static_cast<unsigned char>(text[i + k]);
    if (c < (k == 1 ? low : 0x80) || c > (k == 1 ? high : 0xbf)) return 0;
  }
  return length;
}

}  // namespace

size_t FirstInvalidUtf8(std::string_view text) {
  for (size_t i = 0; i < text.size();) {
    const size_t length = SequenceAt(text, i);
    if (length == 0) return i;
    i += length;
  }
  return std::string_view::npos;
}

std::string ValidUtf8Prefix(std::string_view text, size_t max_bytes) {
  std::string out;
  out.reserve(std::min(text.size(), max_bytes));
  for (size_t i = 0; i < text.size();) {
    const size_t length = SequenceAt(text, i);
    const std::string_view next = length == 0 ? kReplacement : text.substr(i, length);
    if (out.size() + next.size() > max_bytes) break;
    out += next;
    i += length == 0 ? 1 : length;
  }
  return out;
}

}  // namespace kbench::proto::text
