// UTF-8 as RFC 3629 defines it (no overlong forms, no surrogates, nothing
// above U+10FFFF): what a protobuf `string` field must hold. A message
// whose string field holds anything else does not parse at the other end,
// and neither does any page of messages that includes it; so text a client
// sent is checked (admission) or made valid (ValidUtf8Prefix) before it
// reaches a string field, the store or a JSON reply.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace kbench::proto::text {

// The offset of the first byte of `text` that does not start a well-formed
// UTF-8 sequence, or npos when all of it is well formed.
size_t FirstInvalidUtf8(std::string_view text);

// `text` made valid and short: each byte that does not start a well-formed
// sequence replaced by U+FFFD, then cut at a character boundary to at most
// `max_bytes` bytes. Equal to `text` exactly when `text` is well-formed
// UTF-8 of at most `max_bytes` bytes.
std::string ValidUtf8Prefix(std::string_view text, size_t max_bytes);

}  // namespace kbench::proto::text
