// Vector add, vectorized: what changes over naive.
//   - 16-byte accesses: each thread loads two float4 and stores one, so a
//     warp moves 512 contiguous bytes per instruction instead of 128, and
//     the grid needs a quarter of the threads.
//   - Bytes in flight: one float4 of each input per thread (16 bytes), 256
//     threads a block. Of 24 shapes (1 to 8 float4s a thread, 128 to 512
//     threads, plain or streaming hints) timed against torch.add under one
//     timer and kbench's L2 flush at n = 2^16..2^28, cold and hot, one
//     float4 a thread is the fastest or within 0.8% of it everywhere; more
//     float4s a thread lose up to half the speed hot at small n (0.49x
//     torch.add at 2^18), where one wave of blocks covers the array anyway
//     (docs/perf/vector_add_shapes.md).
//   - float4, not float2: in the shapes sweep (an H100, 2026-12-07) one
//     float2 a thread beat one float4 at 2^20 (1.042 against 1.007 of
//     torch.add cold, 1.045 against 1.008 hot) and 2^22, and lost at 2^24
//     cold (0.994 against 1.010). This kernel with float2 accesses up to
//     twice the L2, timed through kbench-server on the same H100 the same
//     day (gpu_check's sizes), gained 1.5-3% cold at 2^20 to 2^22 (0.980,
//     0.992 and 1.045 of torch.add against float4's 0.949, 0.960 and
//     1.029) but lost hot at 2^17 to 2^21 (0.878 at 2^20 against 1.038,
//     0.965 at 2^21 against 1.180) and cold at 2^17 (0.903, where float4's
//     grid is too small and naive's launch runs: 1.000). So the width stays
//     float4; why the two timers disagree at 2^20 hot is not settled.
//   - Grid-stride: the grid covers the array, one float4 per thread, up to
//     the caller's cap on blocks; past the cap each thread strides on. On
//     an H200 a grid covering the array beat a persistent grid of one to
//     eight waves of resident blocks by 1-5% at n = 2^24 and 2^28 (the sweep
//     of tests/gpu_vector_add_grid_test.cc, docs/perf/vector_add.md).
//   - Small n: where the float4 grid would have fewer blocks than the
//     device has SMs (n < 4 * 256 * SMs: 2^17 floats and below on an H100's
//     132 SMs), the launch is the naive kernel's instead, one float a
//     thread over four times the blocks: at n = 2^16 one float4 a thread
//     fills 64 blocks, half the SMs, and took 1.36 us hot against naive's
//     1.14 us through kbench-server on an H100 (docs/perf/vector_add.md).
//   - Cache hints: streaming (ld.global.cs / st.global.cs, evict-first) when
//     the three arrays (12 n bytes) are more than half the L2 and at most
//     twice it, plain otherwise. There, repeated calls (hot) keep more of
//     the arrays in the L2 with evict-first: 1.23x torch.add at 2^22 on an
//     H100 (48 MiB against its 50 MiB L2) where plain loads are 0.98x, and
//     no loss cold. Below (2^21: plain 1.08x, streaming 0.84x hot) and above
//     (2^24 and up: streaming up to 2.5% slower cold) plain loads win.
#include "kernels/cuda/vector_add/vector_add.h"

namespace kbench::kernels::cuda {
namespace {

template <bool kStreaming>
__global__ void __launch_bounds__(kVectorAddBlock)
    VectorAddVectorizedKernel(const float4* __restrict__ a4, const float4* __restrict__ b4,
                              float4* __restrict__ c4, int64_t n4, const float* __restrict__ a_tail,
                              const float* __restrict__ b_tail, float* __restrict__ c_tail,
                              int tail) {
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n4; i += stride) {
    if constexpr (kStreaming) {
      const float4 x = __ldcs(a4 + i), y = __ldcs(b4 + i);
      __stcs(c4 + i, make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w));
    } else {
      const float4 x = a4[i], y = b4[i];
      c4[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
    }
  }
  if (blockIdx.x == 0 && int(threadIdx.x) < tail)
    c_tail[threadIdx.x] = a_tail[threadIdx.x] + b_tail[threadIdx.x];
}

bool Aligned16(const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; }

// The current device's SM count.
cudaError_t SmCount(int* sms) {
  int device = 0;
  if (cudaError_t e = cudaGetDevice(&device); e != cudaSuccess) return e;
  return cudaDeviceGetAttribute(sms, cudaDevAttrMultiProcessorCount, device);
}

// Whether n elements take the streaming hints on the current device (see
// the file comment).
cudaError_t StreamingHints(int64_t n, bool* streaming) {
  int device = 0, l2 = 0;
  if (cudaError_t e = cudaGetDevice(&device); e != cudaSuccess) return e;
  if (cudaError_t e = cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device); e != cudaSuccess)
    return e;
  const int64_t bytes = 3 * int64_t(sizeof(float)) * n;
  *streaming = l2 > 0 && 2 * bytes > int64_t(l2) && bytes <= 2 * int64_t(l2);
  return cudaSuccess;
}

}  // namespace

cudaError_t LaunchVectorAddVectorized(const float* a, const float* b, float* c, int64_t n,
                                      cudaStream_t stream, int max_blocks) {
  if (n < 1 || max_blocks < 1) return cudaErrorInvalidValue;
  if (!Aligned16(a) || !Aligned16(b) || !Aligned16(c)) return cudaErrorInvalidValue;
  const int64_t n4 = n / 4;
  const int tail = int(n - 4 * n4);
  const int64_t needed = (n4 + kVectorAddBlock - 1) / kVectorAddBlock;
  int sms = 0;
  if (cudaError_t e = SmCount(&sms); e != cudaSuccess) return e;
  if (needed < sms) return LaunchVectorAddNaive(a, b, c, n, stream);  // small n (file comment)
  const int64_t blocks = needed < max_blocks ? needed : max_blocks;
  bool streaming = false;
  if (cudaError_t e = StreamingHints(n, &streaming); e != cudaSuccess) return e;
  const auto kernel =
      streaming ? VectorAddVectorizedKernel<true> : VectorAddVectorizedKernel<false>;
  kernel<<<unsigned(blocks), kVectorAddBlock, 0, stream>>>(
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
          &per_sm, VectorAddVectorizedKernel<false>, kVectorAddBlock, 0);
      e != cudaSuccess)
    return e;
  *blocks = sm_count * (per_sm > 0 ? per_sm : 1);
  return cudaSuccess;
}

}  // namespace kbench::kernels::cuda
