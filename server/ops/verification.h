// Helpers the ops share to build their checks and verdicts: range checks
// whose message names the field, the limit and the value, and the
// Verification an ErrorStats makes.
#pragma once

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "kbench/v1/kbench.pb.h"
#include "kernels/verify.h"

namespace kbench::ops {

// INVALID_ARGUMENT "FIELD must be between LOW and HIGH, got VALUE" when
// value is outside [low, high].
absl::Status CheckRange(const std::string& field, uint64_t value, uint64_t low,
                        uint64_t high);

v1::Verification ToVerification(const kernels::ErrorStats& errors,
                                double tolerance, std::string method);

}  // namespace kbench::ops
