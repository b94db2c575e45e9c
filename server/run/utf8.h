// Admission's UTF-8 check: a request field that is not well-formed UTF-8
// (proto/text/utf8.h says what that is) is refused by name before
// protobuf's parser would log it.
#pragma once

#include <string>
#include <string_view>

#include "absl/status/status.h"

namespace kbench::server {

// INVALID_ARGUMENT naming `field` and the first bad byte (offset and value)
// unless `text` is well-formed UTF-8.
absl::Status CheckUtf8(const std::string& field, std::string_view text);

}  // namespace kbench::server
