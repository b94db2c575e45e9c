// What a sweep runs: one op over axes of its problem fields (and dtype),
// expanded into one RunRequest per point. The command line (`kbench sweep
// OP --seq 512,1024 ...`) and spec files (sweep_spec_file.h) both make a
// SweepSpec; docs/SWEEPS.md describes both.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "kbench/v1/kbench.pb.h"
#include "proto/ops/op.h"

namespace kbench::client {

// The most points one sweep may have; more is refused before anything runs.
inline constexpr size_t kMaxSweepPoints = 10000;

// One axis: a problem field of the op and the values it takes, as text
// SetProblemField accepts ("512", "true").
struct SweepAxis {
  const proto::ops::ProblemField* field = nullptr;
  std::vector<std::string> values;
};

struct SweepSpec {
  const proto::ops::Op* op = nullptr;
  // At most one per field; a field without an axis takes the op's default
  // (a field without a default must have an axis).
  std::vector<SweepAxis> axes;
  // Empty: the request default, fp32.
  std::vector<v1::DType> dtypes;
  // Run at every point; empty: every variant the server offers.
  std::vector<std::string> variants;
  v1::TimingOptions timing;
  uint64_t seed = 0;
  // Empty: the sweep's default label (see RunSweep).
  std::string label;
};

// The values of one item of an axis of `field`:
//   count field: a count (ParseCount: 512, 2^9, 4Ki), or a range "A..B" of
//                counts: A, 2A, 4A, ... up to B, so 2^9..2^14 is the powers
//                of two from 512 to 16384;
//   bool field:  "true", "false", or "both" (false, then true).
// Counts come back in decimal ("512"). INVALID_ARGUMENT quoting the item.
absl::StatusOr<std::vector<std::string>> AxisItemValues(const proto::ops::ProblemField& field,
                                                        std::string_view item);

// The values of an axis given as comma-separated items ("512,2^11..2^13",
// "both"), in order. A value listed twice is refused, naming it.
absl::StatusOr<std::vector<std::string>> AxisValues(const proto::ops::ProblemField& field,
                                                    std::string_view text);

// Comma-separated dtype names ("fp16,bf16"); a repeat is refused.
absl::StatusOr<std::vector<v1::DType>> DTypeValues(std::string_view text);

// The number of points of `spec`: the product of its axes' sizes and of the
// dtypes' count (1 when empty).
size_t PointCount(const SweepSpec& spec);

// One request per point, the last axis varying fastest: the op's fields in
// the order the op declares them, then dtype. Each request carries the
// spec's dtype, variants, timing, seed and label. INVALID_ARGUMENT naming
// the flag of a required field that has no axis, a value its field refuses
// ("--seq: '2^40' is too large ..."), or more than kMaxSweepPoints points.
absl::StatusOr<std::vector<v1::RunRequest>> ExpandSweep(const SweepSpec& spec);

}  // namespace kbench::client
