// The vector add shapes tools/bench/vector_add_shapes.py times against
// torch.add under one timer (cold_timing.py cold, do_bench_cudagraph hot), to choose the shape of
// kernels/cuda/vector_add/vector_add_vectorized.cu: float4s per thread
// (bytes in flight), threads per block, and cache hints (plain loads and
// stores, or streaming ones: ld.global.cs / st.global.cs, evict-first).
// Built as a shared library the script loads with ctypes; not part of the
// server.
#include <cuda_runtime_api.h>

#include <cstdint>

namespace {

template <bool kStreaming>
__device__ __forceinline__ float4 Load(const float4* p) {
  if constexpr (kStreaming) return __ldcs(p);
  return *p;
}

template <bool kStreaming>
__device__ __forceinline__ void Store(float4* p, float4 v) {
  if constexpr (kStreaming) {
    __stcs(p, v);
  } else {
    *p = v;
  }
}

// Each block covers blockDim.x * kVecs float4s; thread t takes t, t +
// blockDim.x, ...: all loads first, then the adds and stores.
template <int kVecs, bool kStreaming>
__global__ void Add(const float4* __restrict__ a, const float4* __restrict__ b,
                    float4* __restrict__ c, int64_t n4) {
  const int64_t base = int64_t(blockIdx.x) * blockDim.x * kVecs + threadIdx.x;
  float4 x[kVecs], y[kVecs];
#pragma unroll
  for (int k = 0; k < kVecs; ++k) {
    const int64_t i = base + int64_t(k) * blockDim.x;
    if (i < n4) {
      x[k] = Load<kStreaming>(a + i);
      y[k] = Load<kStreaming>(b + i);
    }
  }
#pragma unroll
  for (int k = 0; k < kVecs; ++k) {
    const int64_t i = base + int64_t(k) * blockDim.x;
    if (i < n4) {
      Store<kStreaming>(
          c + i, make_float4(x[k].x + y[k].x, x[k].y + y[k].y, x[k].z + y[k].z, x[k].w + y[k].w));
    }
  }
}

template <int kVecs, bool kStreaming>
int Launch(int block, const float* a, const float* b, float* c, int64_t n, cudaStream_t stream) {
  const int64_t n4 = n / 4;
  const int64_t per_block = int64_t(block) * kVecs;
  const int64_t blocks = (n4 + per_block - 1) / per_block;
  Add<kVecs, kStreaming><<<unsigned(blocks), block, 0, stream>>>(reinterpret_cast<const float4*>(a),
                                                                 reinterpret_cast<const float4*>(b),
                                                                 reinterpret_cast<float4*>(c), n4);
  return int(cudaGetLastError());
}

template <int kVecs>
int LaunchHinted(int streaming, int block, const float* a, const float* b, float* c, int64_t n,
                 cudaStream_t stream) {
  return streaming ? Launch<kVecs, true>(block, a, b, c, n, stream)
                   : Launch<kVecs, false>(block, a, b, c, n, stream);
}

}  // namespace

// c = a + b over n floats (n a multiple of 4, pointers 16-byte aligned)
// with `vecs` (1, 2, 4 or 8) float4s per thread, `block` threads per block,
// streaming hints when `streaming` is 1. Returns the launch's cudaError_t;
// cudaErrorInvalidValue for a shape it does not have.
extern "C" int kbench_shapes_add(int vecs, int block, int streaming, const float* a, const float* b,
                                 float* c, int64_t n, void* stream) {
  if (n % 4 != 0 || block < 32 || block > 1024) return int(cudaErrorInvalidValue);
  const auto s = static_cast<cudaStream_t>(stream);
  switch (vecs) {
    case 1:
      return LaunchHinted<1>(streaming, block, a, b, c, n, s);
    case 2:
      return LaunchHinted<2>(streaming, block, a, b, c, n, s);
    case 4:
      return LaunchHinted<4>(streaming, block, a, b, c, n, s);
    case 8:
      return LaunchHinted<8>(streaming, block, a, b, c, n, s);
    default:
      return int(cudaErrorInvalidValue);
  }
}
