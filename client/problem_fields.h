// Setting an op's problem fields (proto::ops::ProblemField) from text, for the run
// subcommands' flags and for the axes of a sweep.
#pragma once

#include <google/protobuf/message.h>

#include <string_view>

#include "absl/status/status.h"
#include "proto/ops/op.h"

namespace kbench::client {

// Whether the CLI takes `field` as a bool: a flag without a value.
inline bool IsBoolField(const proto::ops::ProblemField& field) { return field.type_name.empty(); }

// Sets `field` of `problem` (an op's problem message) from `text`: a count
// (ParseCount: 4096, 2^12, 4Ki) for an unsigned field, "true" or "false"
// for a bool. INVALID_ARGUMENT quoting the text when it is not one, or is
// too large for a 32-bit field. Throws std::logic_error when the op declares
// a field its problem lacks or of a type the CLI cannot set (a bug).
absl::Status SetProblemField(google::protobuf::Message& problem,
                             const proto::ops::ProblemField& field, std::string_view text);

}  // namespace kbench::client
