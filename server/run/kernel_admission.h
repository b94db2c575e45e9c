// Admission of learners' kernels (kbench.v1.KernelSource), for CompileKernel
// and for runs that carry kernels: the limits (count, source bytes, name and
// entry lengths), the language, the compile options' allow-list, the
// #include check (kernel_includes.h) and the launch spec (launch
// expressions over the op's sizes, proto/ops/launch_expression.h). Every
// refusal is INVALID_ARGUMENT naming the field and the limit, e.g.
// "kernels[1].source must be at most 262144 bytes, got 1048576".
// Pure functions of the request and the limits.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "kbench/v1/kbench.pb.h"
#include "proto/ops/kernel_abi.h"
#include "proto/ops/op.h"

namespace kbench::server {

inline constexpr size_t kMaxKernelNameLength = 64;
inline constexpr size_t kMaxKernelEntryLength = 128;
inline constexpr int kMaxKernelOptions = 8;
inline constexpr int kMinMaxRegisterCount = 16;
inline constexpr int kMaxMaxRegisterCount = 255;
// Bounds every CUDA device shares: threads per block, and the block's
// dimensions. The dynamic shared memory bound is the most any supported
// GPU grants a block (227 KiB on Hopper); the device checks its own at
// launch.
inline constexpr int64_t kMaxThreadsPerBlock = 1024;
inline constexpr int64_t kMaxDynamicSharedMemoryBytes = 227 * 1024;

// The checks of one kernel that need no problem: name, language, source
// size and includes, entry, options, and the launch spec's syntax.
// `field` prefixes every message ("kernel", "kernels[0]").
absl::Status CheckKernelSource(const std::string& field, const v1::KernelSource& kernel,
                               const proto::ops::KernelAbi& abi, const v1::Limits& limits);

// CompileKernel's request: a known op with a kernel ABI, a dtype its ABI
// takes, and the kernel (CheckKernelSource).
absl::Status CheckCompileRequest(const v1::CompileKernelRequest& request, const v1::Limits& limits);

// A kernel's launch spec evaluated for the problem of `request`: grid and
// block (x, y, z; 1 where not given), dynamic shared memory bytes.
struct LaunchValues {
  std::array<int64_t, 3> grid{1, 1, 1};
  std::array<int64_t, 3> block{1, 1, 1};
  int64_t shared_memory_bytes = 0;
};

// Evaluates `kernel`'s launch spec (grid and block required) for the
// problem of `request` and checks the values against the bounds every CUDA
// device shares: grid x 1 to 2^31 - 1, y and z 1 to 65535; block x and y 1
// to 1024, z 1 to 64, at most kMaxThreadsPerBlock threads; dynamic shared
// memory 0 to kMaxDynamicSharedMemoryBytes. Admission and the worker (which
// launches with these values) both call it.
absl::StatusOr<LaunchValues> EvaluateLaunch(const std::string& field,
                                            const v1::KernelSource& kernel,
                                            const proto::ops::KernelAbi& abi,
                                            const v1::RunRequest& request);

// A run's kernels: at most Limits.max_kernels, each CheckKernelSource, a
// launch spec whose values fit the problem (EvaluateLaunch), names unique
// and none a built-in variant's. Then, on a backend other than cuda,
// FAILED_PRECONDITION saying running needs a GPU. OK when the request has
// no kernels, or on a cuda backend (the worker compiles and runs them).
absl::Status AdmitKernels(const v1::RunRequest& request, const proto::ops::Op& op,
                          const v1::Limits& limits, std::string_view backend);

}  // namespace kbench::server
