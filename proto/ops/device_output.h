// What a verifier reads of a run's output where it lives (server/worker/device.h's
// Workload implements it): the comparison of every element with the
// device's own reference, and chosen ranges of the output and of that
// reference, copied to the host. Used by the runner's thread only, between
// runs of the workload.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "kernels/verify.h"

namespace kbench::proto::ops {

enum class OutputBuffer {
  kOutput,     // what the last run wrote
  kReference,  // the device reference (see DeviceOutput)
};

class DeviceOutput {
 public:
  virtual ~DeviceOutput() = default;

  // Compares every element of the last run's output with the device
  // reference, on the device, and returns the reduction (kernels/verify.h:
  // the same fields, by the same rules, as kernels::Comparison::Add over
  // every index in order). The device reference is the op's independent
  // simple reference (kernels/<op>/simple_reference.h: fp32 accumulation, no
  // code shared with the variants) on the workload's inputs, as fp32;
  // computed on the first call of this or Read(kReference), once per
  // workload. Fails only for a device error.
  virtual absl::StatusOr<kernels::Comparison> CompareWithReference(
      const kernels::ElementTolerance& tolerance) = 0;

  // Copies elements [first, first + out.size()) of `buffer`, converted to
  // float, to `out`. INVALID_ARGUMENT when the range is outside the output.
  virtual absl::Status Read(OutputBuffer buffer, int64_t first, std::span<float> out) = 0;

  // Bytes of the guard region just past the output's end that the last run
  // changed: the output's poison covers the guard too, so any byte of it
  // not poison was written by a kernel writing past the end of its output.
  // 0 where the output has no guard (the CPU backend's runs only built-in
  // code). Fails only for a device error.
  virtual absl::StatusOr<uint64_t> GuardBytesWritten() { return uint64_t{0}; }

  // An input the runs since it was drawn changed: its name in the op's ABI
  // ("a", "q", ...) and how many of its elements differ from those drawn.
  struct ChangedInput {
    std::string name;
    uint64_t elements = 0;
  };
  // The inputs whose elements no longer are those drawn for them (a kernel
  // wrote into one), in the op's order; empty where none changed, and
  // where the backend runs only built-in code (the CPU backend). Fails
  // only for a device error.
  virtual absl::StatusOr<std::vector<ChangedInput>> InputsChanged() {
    return std::vector<ChangedInput>{};
  }
};

}  // namespace kbench::proto::ops
