#include "proto/ops/kernel_abi.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "proto/ops/registry.h"

namespace kbench::proto::ops {

using kernels::DType;

std::string KernelAbi::Signature() const {
  std::vector<std::string> declarations;
  for (const AbiParameter& p : parameters) declarations.push_back(p.declaration);
  return absl::StrCat("(", absl::StrJoin(declarations, ", "), ")");
}

bool KernelAbi::Supports(DType dtype) const {
  for (DType d : dtypes)
    if (d == dtype) return true;
  return false;
}

const KernelAbi* AbiOf(std::string_view op) {
  const Op* found = FindOp(op);
  return found == nullptr ? nullptr : found->kernel_abi();
}

std::vector<int64_t> SizeValues(const KernelAbi& abi, const v1::RunRequest& request) {
  return abi.size_values(request);
}

std::string KernelPrelude(DType dtype) {
  switch (dtype) {
    case DType::kFp16:
      return "#include <cuda_fp16.h>\n#define KBENCH_DTYPE_FP16 1\ntypedef __half kbench_t;\n"
             "typedef kbench_t kbench_out_t;\n";
    case DType::kBf16:
      return "#include <cuda_bf16.h>\n#define KBENCH_DTYPE_BF16 1\n"
             "typedef __nv_bfloat16 kbench_t;\ntypedef kbench_t kbench_out_t;\n";
    case DType::kFp8:
      return absl::StrCat(
          "#include <cuda_fp8.h>\n#include <cuda_bf16.h>\n#define KBENCH_DTYPE_FP8 1\n"
          "typedef __nv_fp8_e4m3 kbench_t;\ntypedef __nv_bfloat16 kbench_out_t;\n"
          "#define KBENCH_FP8_SCALE ",
          absl::StrFormat("%a", double(kernels::kFp8InputScale)), "f\n");
    case DType::kFp32:
      break;
  }
  return "#define KBENCH_DTYPE_FP32 1\ntypedef float kbench_t;\ntypedef kbench_t kbench_out_t;\n";
}

}  // namespace kbench::proto::ops
