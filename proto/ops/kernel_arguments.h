// The parameter buffer of one launch of a learner's kernel: the op's
// KernelAbi::arguments for the problem (kernel_abi.h), with each buffer
// argument bound to the workload's device pointer, laid out as
// cuLaunchKernel's kernelParams takes them (one pointer per parameter to
// its value). Every argument's size is checked against its parameter's
// (AbiParameter.bytes), so a table that disagrees with the ABI fails here,
// not on the device.
//
// Pure host code: no CUDA. Immutable once made; its pointers stay valid as
// long as it lives (it is not copyable or movable once Params() is taken:
// keep it behind a unique_ptr).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "kbench/v1/kbench.pb.h"
#include "proto/ops/kernel_abi.h"

namespace kbench::proto::ops {

class KernelArgumentPack {
 public:
  // The arguments of `abi` for the problem of `request`, buffer k bound to
  // buffers[k] (the workload's inputs in the op's order, then its output).
  // INTERNAL when the op's table disagrees with its ABI (count, a size) or
  // names a buffer the workload does not have.
  static absl::StatusOr<std::unique_ptr<KernelArgumentPack>> Make(const KernelAbi& abi,
                                                                  const v1::RunRequest& request,
                                                                  std::span<void* const> buffers);

  KernelArgumentPack(const KernelArgumentPack&) = delete;
  KernelArgumentPack& operator=(const KernelArgumentPack&) = delete;

  // Appends `count` 8-byte null parameters after the ABI's: Triton's hidden
  // scratch pointers (kernel_abi.h, kTritonHiddenPointers), for a module
  // whose entry declares them. Before Params() is taken.
  void AppendNullPointers(size_t count);

  // cuLaunchKernel's kernelParams: one pointer per parameter, in order.
  void** Params() { return pointers_.data(); }
  size_t size() const { return pointers_.size(); }
  // The bytes of parameter i, as the kernel receives them.
  std::span<const uint8_t> Bytes(size_t i) const;

 private:
  KernelArgumentPack() = default;
  // 8 bytes per parameter, each value at the start of its slot.
  std::vector<uint64_t> slots_;
  std::vector<uint32_t> sizes_;
  std::vector<void*> pointers_;
};

}  // namespace kbench::proto::ops
