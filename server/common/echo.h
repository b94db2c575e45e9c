// Echo: what a client sent, quoted into a status message. Every message
// that repeats a client's input (a variant name, a run id, a cohort, a
// parameter) quotes it through Echo, so that no reply grows with the input:
// a gRPC status message travels in the reply's metadata, and a client
// refuses metadata over its limit (8 KiB by default), and with it other
// calls on the same connection.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace kbench::server {

// The most bytes of an input Echo quotes.
inline constexpr size_t kMaxEchoBytes = 64;

// The first kMaxEchoBytes bytes of `input` escaped and in double quotes as
// Quoted (log.h) writes them, so the echo is printable ASCII whatever the
// input held; a longer input is followed by "... (N bytes)", N its length:
// Echo("naive") is "\"naive\"", a 9000-byte name "\"xxx...x\"... (9000 bytes)".
std::string Echo(std::string_view input);

}  // namespace kbench::server
