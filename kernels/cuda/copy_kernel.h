// A tuned device-to-device copy, one of the two measurements of the copy
// ceiling (the other is cudaMemcpyAsync; the ceiling is the better of the
// two): 16-byte loads and stores, grid-stride, with a scalar tail.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace kbench::kernels::cuda {

// dst[i] = src[i] for i < n floats; 16-byte aligned pointers.
// `blocks` is the grid (e.g. a few waves of the device's SMs).
cudaError_t LaunchCopy(const float* src, float* dst, int64_t n, int blocks, cudaStream_t stream);

}  // namespace kbench::kernels::cuda
