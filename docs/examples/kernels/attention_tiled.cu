// kbench: grid=cdiv(N,8),B*H block=256 smem=128*d entry=attention_tiled
// Attention, tiled: a block takes 8 query rows of one (batch, head), one
// warp a row, and walks the keys in tiles of 16 that the whole block loads
// into shared memory once (as fp32: 2 * 16 * d * 4 = 128 * d bytes of
// dynamic shared memory, the launch's smem), so each K and V element is
// read from global memory once per 8 queries instead of once per query.
// Online softmax in fp32 as in attention_naive.cu; any d up to 256, every
// dtype (docs/KERNELS.md).
#define MAX_D 256
#define ROWS 8
#define TILE 16

// An input element's value (fp8: its E4M3 value times the inputs' scale).
__device__ __forceinline__ float ToFloat(kbench_t x) {
#if defined(KBENCH_DTYPE_FP16)
  return __half2float(x);
#elif defined(KBENCH_DTYPE_BF16)
  return __bfloat162float(x);
#elif defined(KBENCH_DTYPE_FP8)
  return float(x) * KBENCH_FP8_SCALE;
#else
  return x;
#endif
}

// An output element, rounded to nearest even (fp8's output is bf16).
__device__ __forceinline__ kbench_out_t FromFloat(float x) {
#if defined(KBENCH_DTYPE_FP16)
  return __float2half_rn(x);
#elif defined(KBENCH_DTYPE_BF16) || defined(KBENCH_DTYPE_FP8)
  return __float2bfloat16_rn(x);
#else
  return x;
#endif
}

extern "C" __global__ void attention_tiled(const kbench_t* q, const kbench_t* k, const kbench_t* v,
                                           kbench_out_t* o, int B, int H, int N, int d, float scale,
                                           int causal) {
  extern __shared__ float tiles[];  // K tile [TILE][d], then V tile [TILE][d]
  float* ks = tiles;
  float* vs = tiles + TILE * d;
  const int lane = threadIdx.x % 32;
  const long long head = blockIdx.y;
  const int i = blockIdx.x * ROWS + threadIdx.x / 32;
  const bool active = i < N;
  const kbench_t* kh = k + head * N * d;
  const kbench_t* vh = v + head * N * d;
  const long long row = head * N + i;
  float qr[MAX_D / 32], acc[MAX_D / 32];
#pragma unroll
  for (int t = 0; t < MAX_D / 32; ++t) {
    const int c = lane + 32 * t;
    qr[t] = active && c < d ? ToFloat(q[row * d + c]) * scale : 0.0f;
    acc[t] = 0.0f;
  }
  float m = -__int_as_float(0x7f800000), l = 0.0f;
  // Every warp of the block loops over the same tiles (the barriers need
  // all of them): up to the block's last row's keys.
  const int last_row = min(N - 1, int(blockIdx.x) * ROWS + ROWS - 1);
  const int keys = causal ? last_row + 1 : N;
  for (int j0 = 0; j0 < keys; j0 += TILE) {
    const int count = min(TILE, keys - j0);
    __syncthreads();
    for (int e = threadIdx.x; e < count * d; e += blockDim.x) {
      ks[e] = ToFloat(kh[(long long)j0 * d + e]);
      vs[e] = ToFloat(vh[(long long)j0 * d + e]);
    }
    __syncthreads();
    if (!active) continue;
    for (int jj = 0; jj < count; ++jj) {
      if (causal && j0 + jj > i) break;
      float s = 0.0f;
#pragma unroll
      for (int t = 0; t < MAX_D / 32; ++t) {
        const int c = lane + 32 * t;
        if (c < d) s += qr[t] * ks[jj * d + c];
      }
#pragma unroll
      for (int offset = 16; offset > 0; offset /= 2) s += __shfl_xor_sync(0xffffffffu, s, offset);
      const float m_new = fmaxf(m, s);
      const float correction = __expf(m - m_new);
      const float p = __expf(s - m_new);
      l = l * correction + p;
#pragma unroll
      for (int t = 0; t < MAX_D / 32; ++t) {
        const int c = lane + 32 * t;
        if (c < d) acc[t] = acc[t] * correction + p * vs[jj * d + c];
      }
      m = m_new;
    }
  }
  if (!active) return;
#pragma unroll
  for (int t = 0; t < MAX_D / 32; ++t) {
    const int c = lane + 32 * t;
    if (c < d) o[row * d + c] = FromFloat(acc[t] / l);
  }
}
