// The #include check of a learner's CUDA C++: only the CUDA headers of
// AllowedKernelHeaders() may be included, so the compiler reads no other
// file of the server (`#include "/etc/passwd"` is refused naming the path).
//
// The check over-approximates on purpose: every '#' or '%:' followed
// (across blanks, comments and line splices) by include, include_next,
// import or embed is taken for a directive, wherever it stands (also inside
// a string or a comment), and must name an allowed header as a literal
// <name> or "name". A directive is recognised by what follows the '#', not
// by where the line starts, so comments and raw strings (which could hide a
// line start from a lexer that misreads them) cannot smuggle one past.
// __has_include is refused outright: it probes the server's files. Pure.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"

namespace kbench::server {

// The headers a learner's kernel may include, e.g. "cuda_fp16.h".
const std::vector<std::string>& AllowedKernelHeaders();

// OK, or INVALID_ARGUMENT naming `field`, the line, the header and the
// allowed ones.
absl::Status CheckKernelIncludes(const std::string& field, std::string_view source);

}  // namespace kbench::server
