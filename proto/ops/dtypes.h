// The API's dtype enum and the kernels' DType (kernels/dtype.h, the one
// table of names and sizes) are the same values; these convert between
// them. DTYPE_UNSPECIFIED is the request default, fp32.
#pragma once

#include <string>

#include "kbench/v1/kbench.pb.h"
#include "kernels/dtype.h"

namespace kbench::proto::ops {

kernels::DType FromProto(v1::DType dtype);  // UNSPECIFIED -> kFp32
v1::DType ToProto(kernels::DType dtype);
// "fp16"; "dtype #7" for a value outside the table.
std::string DTypeText(v1::DType dtype);

}  // namespace kbench::proto::ops
