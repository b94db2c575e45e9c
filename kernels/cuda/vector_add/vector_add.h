// Vector add, c = a + b in fp32, on a CUDA device: host-side launchers of the
// two variants the API names. Both compute the same function for any n >= 1
// (one fp32 rounding per element, so both are held to the fp32 tolerance of
// kernels/dtype.h); they differ only in how threads map to elements:
//   naive:      vector_add_naive.cu, one element per thread.
//   vectorized: vector_add_vectorized.cu, float2 accesses while the arrays
//               fit the L2 (streaming hints in its upper half), float4
//               beyond it and at small n; a grid covering the array.
//
// Contract: a, b, c are device pointers to n floats, and for `vectorized`
// 16-byte aligned (cudaMalloc returns 256-byte aligned memory). A launcher
// enqueues on `stream`, does not wait, and returns the launch's error
// (cudaGetLastError), so a bad configuration is reported at the call.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace kbench::kernels::cuda {

inline constexpr int kVectorAddBlock = 256;

cudaError_t LaunchVectorAddNaive(const float* a, const float* b, float* c, int64_t n,
                                 cudaStream_t stream);

// The largest grid a launch may have (gridDim.x).
inline constexpr int kMaxGridBlocks = 0x7fffffff;

// The grid covers the array, one float2 or float4 per thread (the file
// comment of vector_add_vectorized.cu says which where), capped at
// max_blocks blocks; past the cap threads stride through the array. The
// default cap is the launch limit: kbench's timings use it; grid sweeps pass
// others.
cudaError_t LaunchVectorAddVectorized(const float* a, const float* b, float* c, int64_t n,
                                      cudaStream_t stream, int max_blocks = kMaxGridBlocks);

// Blocks of the vectorized kernel that fit on `device` at once (one wave),
// for grid sweeps.
cudaError_t VectorAddVectorizedResidentBlocks(int device, int* blocks);

}  // namespace kbench::kernels::cuda
