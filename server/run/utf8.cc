#include "server/run/utf8.h"

#include "absl/strings/str_cat.h"

namespace kbench::server {

size_t FirstInvalidUtf8(std::string_view text) {
  size_t i = 0;
  while (i < text.size()) {
    const auto b = static_cast<unsigned char>(text[i]);
    size_t length = 0;
    unsigned char low = 0x80, high = 0xbf;  // the range of the second byte
    if (b < 0x80) {
      length = 1;
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
      return i;
    }
    if (i + length > text.size()) return i;
    for (size_t k = 1; k < length; ++k) {
      const auto c = static_cast<unsigned char>(text[i + k]);
      if (c < (k == 1 ? low : 0x80) || c > (k == 1 ? high : 0xbf)) return i;
    }
    i += length;
  }
  return std::string_view::npos;
}

absl::Status CheckUtf8(const std::string& field, std::string_view text) {
  if (const size_t at = FirstInvalidUtf8(text); at != std::string_view::npos)
    return absl::InvalidArgumentError(absl::StrCat(
        field, " must be valid UTF-8 text; byte ", at, " (0x",
        absl::Hex(static_cast<unsigned char>(text[at]), absl::kZeroPad2),
        ") is not the start of a well-formed character"));
  return absl::OkStatus();
}

}  // namespace kbench::server
