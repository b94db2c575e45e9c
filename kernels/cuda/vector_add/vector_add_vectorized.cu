// Vector add, vectorized: what changes over naive. Figures are from an
// H100 (132 SMs, 50 MiB of L2), through kbench-server against torch.add in
// the same call (docs/perf/vector_add.md) and from the shapes sweep, which
// times kbench's launcher beside each shape under one timer
// (docs/perf/vector_add_shapes.md).
//   - Wide accesses: each thread loads one float2 or one float4 of a and of
//     b and stores one of c, 256 threads a block. Of 24 float4 shapes (1 to
//     8 float4s a thread, 128 to 512 threads, either hint) one float4 a
//     thread was the fastest or within 0.8% everywhere; more bytes in
//     flight a thread lose hot at small n, where one wave of blocks covers
//     the array anyway (0.49x torch.add at 2^18).
//   - float2 while the three arrays (12 n bytes) fit the L2, float4 beyond
//     it and below two float4 blocks an SM (n < 8 * 256 * SMs: 2^18 and
//     below on an H100). float2 was the best shape or level with it at
//     2^19 to 2^22 (2^20: 1.042 of torch.add cold against float4's 1.013,
//     1.091 hot against 1.004) and lost beyond the L2 (2^24 cold: 0.993
//     against 1.008). At small n float4 and naive's launch (which ran
//     there before) trade within 3%: float4 ahead cold at 2^16 and 2^17
//     (1.54 against 1.57 us), behind hot (1.29 against 1.25 us at 2^17)
//     and cold at 2^18 (2.21 against 2.14-2.18); float4 keeps every size
//     at or above torch.add with fewer of them level.
//   - Cache hints: streaming (ld.global.cs / st.global.cs, evict-first)
//     when the arrays are more than half the L2 and within it, plain
//     otherwise. There repeated calls (hot) keep more of the arrays in the
//     L2 with evict-first (2^22: 1.24x torch.add against plain's 0.96-0.98x)
//     at no loss cold; below (2^21 hot: 0.97 against 1.16) and beyond the
//     L2 (2^23: 0.980 hot against 1.000; 2^24 and up: 1-2.5% slower cold)
//     plain loads win.
//   - The grid covers the array, one access a thread, with no loop; the
//     threads past the last access take the tail's floats. The grid-stride
//     kernel it had, unrolled by the compiler, first divided (64 bits) for
//     its trip count before the first load, and took 0.2-0.3 us more than
//     the same shape at 2^18 to 2^21 (2.40 against 2.18 us at 2^18 cold);
//     not unrolled it still took about 0.13 us more at 2^19 and 2^20 (the
//     loop or block 0's tail after it); without the loop it takes the
//     shape's time. tests/vector_add_ptx_check.sh fails on any division in
//     these kernels. A grid capped below the array's (grid sweeps,
//     max_blocks) takes the strided kernel, not unrolled. Against one to
//     eight waves of resident blocks the covering grid was level or ahead
//     at 2^24 (59.6 against 59.6-61.7 us) and 2^28 (1.029 against
//     1.059-1.070 ms) on an H100, cold (tests/gpu_vector_add_grid_test.cc).
#include "kernels/cuda/vector_add/vector_add.h"

namespace kbench::kernels::cuda {
namespace {

__device__ __forceinline__ float2 Add(float2 x, float2 y) {
  return make_float2(x.x + y.x, x.y + y.y);
}
__device__ __forceinline__ float4 Add(float4 x, float4 y) {
  return make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
}

// V: float2 or float4. Both kernels do nv accesses of V, then `tail` (<
// floats in a V) single floats past them.
// The grid covers the array: thread i takes access i, or tail float i - nv
// (file comment: no loop).
template <typename V, bool kStreaming>
__global__ void __launch_bounds__(kVectorAddBlock)
    VectorAddVectorizedCoverKernel(const V* __restrict__ av, const V* __restrict__ bv,
                                   V* __restrict__ cv, int64_t nv, const float* __restrict__ a_tail,
                                   const float* __restrict__ b_tail, float* __restrict__ c_tail,
                                   int tail) {
  const int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < nv) {
    if constexpr (kStreaming) {
      __stcs(cv + i, Add(__ldcs(av + i), __ldcs(bv + i)));
    } else {
      cv[i] = Add(av[i], bv[i]);
    }
  } else if (i - nv < tail) {
    c_tail[i - nv] = a_tail[i - nv] + b_tail[i - nv];
  }
}

// A grid capped below the array's (grid sweeps): each thread strides on;
// block 0 takes the tail.
template <typename V, bool kStreaming>
__global__ void __launch_bounds__(kVectorAddBlock)
    VectorAddVectorizedStrideKernel(const V* __restrict__ av, const V* __restrict__ bv,
                                    V* __restrict__ cv, int64_t nv,
                                    const float* __restrict__ a_tail,
                                    const float* __restrict__ b_tail, float* __restrict__ c_tail,
                                    int tail) {
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  // Not unrolled: an unrolled grid-stride loop first divides for its trip
  // count, before the first load.
#pragma unroll 1
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < nv; i += stride) {
    if constexpr (kStreaming) {
      __stcs(cv + i, Add(__ldcs(av + i), __ldcs(bv + i)));
    } else {
      cv[i] = Add(av[i], bv[i]);
    }
  }
  if (blockIdx.x == 0 && int(threadIdx.x) < tail)
    c_tail[threadIdx.x] = a_tail[threadIdx.x] + b_tail[threadIdx.x];
}

bool Aligned16(const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; }

// The current device's SM count and L2 bytes.
cudaError_t DeviceShape(int* sms, int* l2_bytes) {
  int device = 0;
  if (cudaError_t e = cudaGetDevice(&device); e != cudaSuccess) return e;
  if (cudaError_t e = cudaDeviceGetAttribute(sms, cudaDevAttrMultiProcessorCount, device);
      e != cudaSuccess)
    return e;
  return cudaDeviceGetAttribute(l2_bytes, cudaDevAttrL2CacheSize, device);
}

template <typename V, bool kStreaming>
cudaError_t Launch(const float* a, const float* b, float* c, int64_t n, cudaStream_t stream,
                   int max_blocks) {
  constexpr int kFloats = int(sizeof(V) / sizeof(float));
  const int64_t nv = n / kFloats;
  const int tail = int(n - kFloats * nv);
  const auto av = reinterpret_cast<const V*>(a), bv = reinterpret_cast<const V*>(b);
  const auto cv = reinterpret_cast<V*>(c);
  const int64_t covering = (nv + tail + kVectorAddBlock - 1) / kVectorAddBlock;
  if (covering <= max_blocks) {
    VectorAddVectorizedCoverKernel<V, kStreaming>
        <<<unsigned(covering), kVectorAddBlock, 0, stream>>>(
            av, bv, cv, nv, a + kFloats * nv, b + kFloats * nv, c + kFloats * nv, tail);
  } else {
    VectorAddVectorizedStrideKernel<V, kStreaming>
        <<<unsigned(max_blocks), kVectorAddBlock, 0, stream>>>(
            av, bv, cv, nv, a + kFloats * nv, b + kFloats * nv, c + kFloats * nv, tail);
  }
  return cudaGetLastError();
}

}  // namespace

cudaError_t LaunchVectorAddVectorized(const float* a, const float* b, float* c, int64_t n,
                                      cudaStream_t stream, int max_blocks) {
  if (n < 1 || max_blocks < 1) return cudaErrorInvalidValue;
  if (!Aligned16(a) || !Aligned16(b) || !Aligned16(c)) return cudaErrorInvalidValue;
  int sms = 0, l2 = 0;
  if (cudaError_t e = DeviceShape(&sms, &l2); e != cudaSuccess) return e;
  // The rules of the file comment: float4 below two float4 blocks an SM and
  // beyond the L2, float2 between (streaming in the L2's upper half).
  const int64_t float4_blocks = (n / 4 + kVectorAddBlock - 1) / kVectorAddBlock;
  const int64_t bytes = 3 * int64_t(sizeof(float)) * n;
  if (float4_blocks < 2 * int64_t(sms) || bytes > int64_t(l2))
    return Launch<float4, false>(a, b, c, n, stream, max_blocks);
  return 2 * bytes > int64_t(l2) ? Launch<float2, true>(a, b, c, n, stream, max_blocks)
                                 : Launch<float2, false>(a, b, c, n, stream, max_blocks);
}

cudaError_t VectorAddVectorizedResidentBlocks(int device, int* blocks) {
  int sm_count = 0;
  if (cudaError_t e = cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device);
      e != cudaSuccess)
    return e;
  int per_sm = 0;
  if (cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(
          &per_sm, VectorAddVectorizedStrideKernel<float4, false>, kVectorAddBlock, 0);
      e != cudaSuccess)
    return e;
  *blocks = sm_count * (per_sm > 0 ? per_sm : 1);
  return cudaSuccess;
}

}  // namespace kbench::kernels::cuda
