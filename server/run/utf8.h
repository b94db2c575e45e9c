// Well-formed UTF-8 text (RFC 3629: no overlong forms, no surrogates,
// nothing above U+10FFFF), as protobuf's string fields must hold: a request
// field that is not is refused before protobuf's parser would log it.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "absl/status/status.h"

namespace kbench::server {

// The offset of the first byte of `text` that does not start a well-formed
// UTF-8 sequence, or npos when all of it is well formed.
size_t FirstInvalidUtf8(std::string_view text);

// INVALID_ARGUMENT naming `field` and the first bad byte (offset and value)
// unless `text` is well-formed UTF-8.
absl::Status CheckUtf8(const std::string& field, std::string_view text);

}  // namespace kbench::server
