// Tensor maps for the copy engine (TMA, sm_90): the host-side description of
// a tensor that a kernel's cp.async.bulk.tensor reads boxes of. Encoded
// through the driver's cuTensorMapEncodeTiled, found at run time by
// cudaGetDriverEntryPointByVersion, so nothing links libcuda (CI has no
// driver).
#pragma once

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels/dtype.h"

namespace kbench::kernels::cuda {

// A map of a row-major [outer][rows][cols] tensor of a 16-bit dtype or fp8
// at device address `base`, read in boxes of [box_rows][128 bytes] (64
// 16-bit elements, 128 fp8) with 128-byte swizzle
// (kernels/cuda/attention/hopper_ptx.cuh): coordinates (col, row, outer).
// Elements past cols or rows read as zeros. A row's bytes must be a
// multiple of 16 and base 16-byte aligned. cudaErrorInvalidValue when the driver
// refuses the map (the reason is the driver's), cudaErrorNotSupported
// without a driver that has the function.
cudaError_t EncodeTensorMap(CUtensorMap* map, DType dtype, const void* base, int64_t cols,
                            int64_t rows, int64_t outer, int box_rows);

}  // namespace kbench::kernels::cuda
