// Vector add, vectorized: what changes over naive.
//   - 16-byte accesses: each thread loads two float4 and stores one, so a
//     warp moves 512 contiguous bytes per instruction instead of 128, and
//     the grid needs a quarter of the threads.
//   - Grid-stride: the grid covers the array, one float4 per thread, up to
//     the caller's cap on blocks; past the cap each thread strides on. On
//     an H200 a grid covering the array beat a persistent grid of one to
//     eight waves of resident blocks by 1-5% at n = 2^24 and 2^28 (the sweep
//     of tests/gpu_vector_add_grid_test.cc, docs/perf/vector_add.md).
//   - A scalar tail for the n % 4 last elements (block 0), so any n >= 1
//     works; the float4 part starts at the buffer's base, which cudaMalloc
//     aligns to 256 bytes.
// Tolerance: fp32 (1e-5 relative L2); the arithmetic is the same one
// rounding of a + b per element as naive, so results are bit-identical.
#include "kernels/cuda/vector_add/vector_add.h"

namespace kbench::kernels::cuda {
namespace {

__global__ void __launch_bounds__(kVectorAddBlock)
    VectorAddVectorizedKernel(const float4* __restrict__ a4, const float4* __restrict__ b4,
                              float4* __restrict__ c4, int64_t n4, const float* __restrict__ a_tail,
                              const float* __restrict__ b_tail, float* __restrict__ c_tail,
                              int tail) {
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n4; i += stride) {
    const float4 x = a4[i], y = b4[i];
    c4[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
  }
  if (blockIdx.x == 0 && int(threadIdx.x) < tail)
    c_tail[threadIdx.x] = a_tail[threadIdx.x] + b_tail[threadIdx.x];
}

bool Aligned16(const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; }

}  // namespace

cudaError_t LaunchVectorAddVectorized(const float* a, const float* b, float* c, int64_t n,
                                      cudaStream_t stream, int max_blocks) {
  if (n < 1 || max_blocks < 1) return cudaErrorInvalidValue;
  if (!Aligned16(a) || !Aligned16(b) || !Aligned16(c)) return cudaErrorInvalidValue;
  const int64_t n4 = n / 4;
  const int tail = int(n - 4 * n4);
  const int64_t needed = (n4 + kVectorAddBlock - 1) / kVectorAddBlock;
  const int64_t blocks = needed < 1 ? 1 : (needed < max_blocks ? needed : max_blocks);
  VectorAddVectorizedKernel<<<unsigned(blocks), kVectorAddBlock, 0, stream>>>(
      reinterpret_cast<const float4*>(a), reinterpret_cast<const float4*>(b),
      reinterpret_cast<float4*>(c), n4, a + 4 * n4, b + 4 * n4, c + 4 * n4, tail);
  return cudaGetLastError();
}

cudaError_t VectorAddVectorizedResidentBlocks(int device, int* blocks) {
  int sm_count = 0;
  if (cudaError_t e = cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device);
      e != cudaSuccess)
    return e;
  int per_sm = 0;
  if (cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(
          &per_sm, VectorAddVectorizedKernel, kVectorAddBlock, 0);
      e != cudaSuccess)
    return e;
  *blocks = sm_count * (per_sm > 0 ? per_sm : 1);
  return cudaSuccess;
}

}  // namespace kbench::kernels::cuda
