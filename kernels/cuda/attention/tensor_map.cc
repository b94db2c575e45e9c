// EncodeTensorMap (tensor_map.h).
#include "kernels/cuda/attention/tensor_map.h"

#include <cudaTypedefs.h>

namespace kbench::kernels::cuda {
namespace {

PFN_cuTensorMapEncodeTiled_v12000 EncodeFunction() {
  static const PFN_cuTensorMapEncodeTiled_v12000 fn = [] {
    void* found = nullptr;
    cudaDriverEntryPointQueryResult result{};
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &found, 12000, cudaEnableDefault,
                                         &result) != cudaSuccess ||
        result != cudaDriverEntryPointSuccess)
      return PFN_cuTensorMapEncodeTiled_v12000{nullptr};
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(found);
  }();
  return fn;
}

}  // namespace

cudaError_t EncodeTensorMap(CUtensorMap* map, DType dtype, const void* base, int64_t cols,
                            int64_t rows, int64_t outer, int box_rows) {
  const PFN_cuTensorMapEncodeTiled_v12000 encode = EncodeFunction();
  if (encode == nullptr) return cudaErrorNotSupported;
  if (dtype == DType::kFp32) return cudaErrorInvalidValue;
  // fp8 is moved as bytes: the copy engine never converts.
  const CUtensorMapDataType type = dtype == DType::kFp16   ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16
                                   : dtype == DType::kBf16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
                                                           : CU_TENSOR_MAP_DATA_TYPE_UINT8;
  const int64_t size = DTypeBytes(dtype);
  const cuuint64_t dims[3] = {cuuint64_t(cols), cuuint64_t(rows), cuuint64_t(outer)};
  const cuuint64_t strides[2] = {cuuint64_t(cols * size), cuuint64_t(cols * rows * size)};
  const cuuint32_t box[3] = {cuuint32_t(128 / size), cuuint32_t(box_rows), 1};
  const cuuint32_t element_strides[3] = {1, 1, 1};
  const CUresult r =
      encode(map, type, 3, const_cast<void*>(base), dims, strides, box, element_strides,
             CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
             CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  return r == CUDA_SUCCESS ? cudaSuccess : cudaErrorInvalidValue;
}

}  // namespace kbench::kernels::cuda
