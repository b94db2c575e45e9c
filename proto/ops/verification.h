// Helpers the ops share to build their checks and verdicts: range checks
// whose message names the field, the limit and the value, and the checks
// of one output every op's verifier makes (op.h, Verifier::Check).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "kbench/v1/kbench.pb.h"
#include "kernels/tolerances.h"
#include "proto/ops/device_output.h"

namespace kbench::proto::ops {

// INVALID_ARGUMENT "FIELD must be between LOW and HIGH, got VALUE" when
// value is outside [low, high].
absl::Status CheckRange(const std::string& field, uint64_t value, uint64_t low, uint64_t high);

// Elements [first, first + count) of the output.
struct OutputRange {
  int64_t first = 0;
  int64_t count = 0;
};

// The checks of one output:
//   1. nothing written past the end of the output (its guard region:
//      DeviceOutput::GuardBytesWritten), and nothing into the inputs
//      (DeviceOutput::InputsChanged);
//   2. every element against the device reference, on the device, within
//      tolerances.against_reference;
//   3. the output on `ranges` against `exact` (the double-precision
//      reference of those elements, in range order), within
//      tolerances.variant;
//   4. the device reference on `ranges` against `exact`, within
//      tolerances.reference.
// passed needs all four; `failure` names the first that failed (a write
// past the end first, then a write into an input, then non-finite values, then a wrong device
// reference, then the rest in order).
// `method` is the Verification's method, as the op words it.
absl::StatusOr<v1::Verification> CheckOutput(DeviceOutput& output,
                                             const kernels::OpTolerances& tolerances,
                                             const std::vector<OutputRange>& ranges,
                                             std::span<const double> exact, std::string method);

// 268435456 -> "268,435,456", for methods and failures.
std::string WithCommas(uint64_t value);

}  // namespace kbench::proto::ops
