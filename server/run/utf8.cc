#include "server/run/utf8.h"

#include "absl/strings/str_cat.h"
#include "proto/text/utf8.h"

namespace kbench::server {

absl::Status CheckUtf8(const std::string& field, std::string_view text) {
  if (const size_t at = proto::text::FirstInvalidUtf8(text); at != std::string_view::npos)
    return absl::InvalidArgumentError(
        absl::StrCat(field, " must be valid UTF-8 text; byte ", at, " (0x",
                     absl::Hex(static_cast<unsigned char>(text[at]), absl::kZeroPad2),
                     ") is not the start of a well-formed character"));
  return absl::OkStatus();
}

}  // namespace kbench::server
