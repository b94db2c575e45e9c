#include "proto/ops/dtypes.h"

#include "absl/strings/str_cat.h"

namespace kbench::proto::ops {

static_assert(int(kernels::DType::kFp32) == v1::DTYPE_FP32);
static_assert(int(kernels::DType::kFp16) == v1::DTYPE_FP16);
static_assert(int(kernels::DType::kBf16) == v1::DTYPE_BF16);
static_assert(int(kernels::DType::kFp8) == v1::DTYPE_FP8);

kernels::DType FromProto(v1::DType dtype) {
  return dtype == v1::DTYPE_UNSPECIFIED ? kernels::DType::kFp32 : kernels::DType(int(dtype));
}

v1::DType ToProto(kernels::DType dtype) { return v1::DType(int(dtype)); }

std::string DTypeText(v1::DType dtype) {
  for (const kernels::DTypeInfo& info : kernels::AllDTypes())
    if (ToProto(info.dtype) == dtype) return info.name;
  if (dtype == v1::DTYPE_UNSPECIFIED) return "fp32";
  return absl::StrCat("dtype #", int(dtype));
}

}  // namespace kbench::proto::ops
