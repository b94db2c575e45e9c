// The vector add shapes tools/bench/vector_add_shapes.py times against
// torch.add under one timer (cold_timing.py cold, do_bench_cudagraph hot), to choose the shape of
// kernels/cuda/vector_add/vector_add_vectorized.cu: the width of each access
// (a float, a float2 or a float4), accesses per thread (bytes in flight),
// threads per block, and cache hints (plain loads and stores, or streaming
// ones: ld.global.cs / st.global.cs, evict-first).
// Built as a shared library the script loads with ctypes,
// libkbench_vector_add_shapes.so (tools/bench/CMakeLists.txt;
// scripts/gpu_check.sh build bundles it in .gpu/lib/); not part of the
// server. Beside the shapes it exports kbench's own launchers as shipped
// (kernels/cuda/vector_add/vector_add.h: naive, and vectorized with its
// rules choosing a width and hints by size, its grid and its tail), so
// that the kernel the server times is timed under this harness too.
#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels/cuda/vector_add/vector_add.h"

namespace {

__device__ __forceinline__ float Add(float x, float y) { return x + y; }
__device__ __forceinline__ float2 Add(float2 x, float2 y) {
  return make_float2(x.x + y.x, x.y + y.y);
}
__device__ __forceinline__ float4 Add(float4 x, float4 y) {
  return make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
}

template <bool kStreaming, typename V>
__device__ __forceinline__ V Load(const V* p) {
  if constexpr (kStreaming) return __ldcs(p);
  return *p;
}

template <bool kStreaming, typename V>
__device__ __forceinline__ void Store(V* p, V v) {
  if constexpr (kStreaming) {
    __stcs(p, v);
  } else {
    *p = v;
  }
}

// Each block covers blockDim.x * kVecs accesses of V; thread t takes t, t +
// blockDim.x, ...: all loads first, then the adds and stores.
template <typename V, int kVecs, bool kStreaming>
__global__ void AddKernel(const V* __restrict__ a, const V* __restrict__ b, V* __restrict__ c,
                          int64_t nv) {
  const int64_t base = int64_t(blockIdx.x) * blockDim.x * kVecs + threadIdx.x;
  V x[kVecs], y[kVecs];
#pragma unroll
  for (int k = 0; k < kVecs; ++k) {
    const int64_t i = base + int64_t(k) * blockDim.x;
    if (i < nv) {
      x[k] = Load<kStreaming>(a + i);
      y[k] = Load<kStreaming>(b + i);
    }
  }
#pragma unroll
  for (int k = 0; k < kVecs; ++k) {
    const int64_t i = base + int64_t(k) * blockDim.x;
    if (i < nv) Store<kStreaming>(c + i, Add(x[k], y[k]));
  }
}

template <typename V, int kVecs, bool kStreaming>
int Launch(int block, const float* a, const float* b, float* c, int64_t n, cudaStream_t stream) {
  const int64_t nv = n / int64_t(sizeof(V) / sizeof(float));
  const int64_t per_block = int64_t(block) * kVecs;
  const int64_t blocks = (nv + per_block - 1) / per_block;
  AddKernel<V, kVecs, kStreaming><<<unsigned(blocks), block, 0, stream>>>(
      reinterpret_cast<const V*>(a), reinterpret_cast<const V*>(b), reinterpret_cast<V*>(c), nv);
  return int(cudaGetLastError());
}

template <typename V, int kVecs>
int LaunchHinted(int streaming, int block, const float* a, const float* b, float* c, int64_t n,
                 cudaStream_t stream) {
  return streaming ? Launch<V, kVecs, true>(block, a, b, c, n, stream)
                   : Launch<V, kVecs, false>(block, a, b, c, n, stream);
}

template <typename V>
int LaunchVecs(int vecs, int streaming, int block, const float* a, const float* b, float* c,
               int64_t n, cudaStream_t stream) {
  switch (vecs) {
    case 1:
      return LaunchHinted<V, 1>(streaming, block, a, b, c, n, stream);
    case 2:
      return LaunchHinted<V, 2>(streaming, block, a, b, c, n, stream);
    case 4:
      return LaunchHinted<V, 4>(streaming, block, a, b, c, n, stream);
    case 8:
      return LaunchHinted<V, 8>(streaming, block, a, b, c, n, stream);
    default:
      return int(cudaErrorInvalidValue);
  }
}

}  // namespace

// c = a + b over n floats (n a multiple of 4, pointers 16-byte aligned)
// with accesses of `width` floats (1, 2 or 4), `vecs` (1, 2, 4 or 8) of them
// per thread, `block` threads per block, streaming hints when `streaming` is
// 1. Returns the launch's cudaError_t; cudaErrorInvalidValue for a shape it
// does not have.
extern "C" int kbench_shapes_add(int width, int vecs, int block, int streaming, const float* a,
                                 const float* b, float* c, int64_t n, void* stream) {
  if (n % 4 != 0 || block < 32 || block > 1024) return int(cudaErrorInvalidValue);
  const auto s = static_cast<cudaStream_t>(stream);
  switch (width) {
    case 1:
      return LaunchVecs<float>(vecs, streaming, block, a, b, c, n, s);
    case 2:
      return LaunchVecs<float2>(vecs, streaming, block, a, b, c, n, s);
    case 4:
      return LaunchVecs<float4>(vecs, streaming, block, a, b, c, n, s);
    default:
      return int(cudaErrorInvalidValue);
  }
}

// kbench's launchers as the server calls them: variant 0 naive, 1 vectorized.
extern "C" int kbench_shapes_add_kbench(int variant, const float* a, const float* b, float* c,
                                        int64_t n, void* stream) {
  const auto s = static_cast<cudaStream_t>(stream);
  switch (variant) {
    case 0:
      return int(kbench::kernels::cuda::LaunchVectorAddNaive(a, b, c, n, s));
    case 1:
      return int(kbench::kernels::cuda::LaunchVectorAddVectorized(a, b, c, n, s));
    default:
      return int(cudaErrorInvalidValue);
  }
}
