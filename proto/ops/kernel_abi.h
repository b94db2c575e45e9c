// The ABI of a learner's kernel, one per op, declared in the op's folder
// (proto/ops/<op>/, returned by Op::kernel_abi): the parameters its entry
// takes (in order, with their sizes in bytes as the module declares them),
// the sizes its launch spec may name, the dtypes it may be written for; and
// the prelude of type names the server compiles before the learner's
// source. docs/KERNELS.md documents the same table, with starter kernels
// under docs/examples/kernels/ that tests compile against it.
//
// Immutable tables; any thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "kbench/v1/kbench.pb.h"
#include "kernels/dtype.h"

namespace kbench::proto::ops {

struct AbiParameter {
  std::string declaration;  // as a CUDA C++ kernel declares it: "const kbench_t* a"
  uint32_t bytes = 0;       // its size in the module's parameter list
};

// One argument of a learner's kernel's launch, in the ABI's order: one of
// the workload's device buffers (its inputs in the op's order, then its
// output: vector_add a b c, attention q k v o), or a scalar of the problem.
// Its size must be its parameter's (AbiParameter.bytes): a buffer 8, kInt32
// and kFloat32 4, kInt64 8.
struct KernelArgument {
  enum class Kind { kBuffer, kInt32, kInt64, kFloat32 };
  Kind kind = Kind::kBuffer;
  int buffer = 0;       // kBuffer: the index into the workload's buffers
  int64_t integer = 0;  // kInt32, kInt64
  float real = 0;       // kFloat32

  static KernelArgument Buffer(int index) { return {Kind::kBuffer, index, 0, 0}; }
  static KernelArgument Int32(int64_t v) { return {Kind::kInt32, 0, v, 0}; }
  static KernelArgument Int64(int64_t v) { return {Kind::kInt64, 0, v, 0}; }
  static KernelArgument Float32(float v) { return {Kind::kFloat32, 0, 0, v}; }
  // Its size in the launch's parameter buffer.
  uint32_t bytes() const { return kind == Kind::kInt32 || kind == Kind::kFloat32 ? 4 : 8; }
};

// Triton (3.3 and later) appends two pointers to every kernel it compiles,
// its global and profile scratch memory, after the kernel's own
// parameters. A learner's module may declare exactly these two after the
// op's parameters (in PTX, ".u64 .ptr .global"); the launch passes them
// null, as Triton's own launcher does for a kernel that needs no scratch
// (a kernel that does need it is not supported: docs/KERNELS.md).
inline constexpr size_t kTritonHiddenPointers = 2;

struct KernelAbi {
  std::string op;  // "vector_add"
  std::vector<AbiParameter> parameters;
  // The names a launch spec may use, in the order SizeValues gives them.
  std::vector<std::string> sizes;
  std::vector<kernels::DType> dtypes;  // the element types kernels may use
  // The values of `sizes` for the problem of `request` (of this op).
  std::vector<int64_t> (*size_values)(const v1::RunRequest& request) = nullptr;
  // The launch's arguments for the problem of `request`, one per parameter.
  std::vector<KernelArgument> (*arguments)(const v1::RunRequest& request) = nullptr;

  // "(const kbench_t* a, const kbench_t* b, kbench_t* c, long long n)".
  std::string Signature() const;
  bool Supports(kernels::DType dtype) const;
};

// The ABI of the op named `op` (the registry's op's kernel_abi()), or
// nullptr for an unknown op or one that takes no learner's kernels.
const KernelAbi* AbiOf(std::string_view op);

// The values of abi.sizes for the problem of `request` (which must be of
// abi's op).
std::vector<int64_t> SizeValues(const KernelAbi& abi, const v1::RunRequest& request);

// The CUDA C++ the server puts before a learner's source for `dtype`: the
// element type kbench_t of the inputs, kbench_out_t of the output, and a
// KBENCH_DTYPE_<NAME> macro (fp16, bf16 and fp8 with the CUDA headers that
// define their types). kbench_out_t is kbench_t, but for fp8 (inputs
// __nv_fp8_e4m3) it is __nv_bfloat16, as attention's O is
// (kernels/attention/tolerances.h AttentionOutputDType), and fp8 defines
// KBENCH_FP8_SCALE, the per-tensor scale of the inputs
// (kernels::kFp8InputScale): an element's value is its E4M3 value times it.
std::string KernelPrelude(kernels::DType dtype);

}  // namespace kbench::proto::ops
