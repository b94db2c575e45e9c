// kbench: grid=cdiv(B*H*N,4) block=128 entry=attention_naive
// Attention, naive but fused: one warp per query row, each lane holding
// d / 32 of the row's dimensions, one pass over the keys with an online
// softmax (running max and sum), accumulated in fp32. Q, K, V and O are
// [B, H, N, d] contiguous; causal: query i attends to keys 0..i. Any d up
// to 256. Compiles for every dtype: kbench_t is float, __half,
// __nv_bfloat16 or __nv_fp8_e4m3, and O's kbench_out_t the same but bf16
// for fp8 (docs/KERNELS.md).
#define MAX_D 256

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

extern "C" __global__ void attention_naive(const kbench_t* q, const kbench_t* k, const kbench_t* v,
                                           kbench_out_t* o, int B, int H, int N, int d, float scale,
                                           int causal) {
  const int warps = blockDim.x / 32;
  const long long row = (long long)blockIdx.x * warps + threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  if (row >= (long long)B * H * N) return;
  const int i = int(row % N);
  const long long head = row / N;
  const kbench_t* kh = k + head * N * d;
  const kbench_t* vh = v + head * N * d;
  float qr[MAX_D / 32], acc[MAX_D / 32];
#pragma unroll
  for (int t = 0; t < MAX_D / 32; ++t) {
    const int c = lane + 32 * t;
    qr[t] = c < d ? ToFloat(q[row * d + c]) * scale : 0.0f;
    acc[t] = 0.0f;
  }
  float m = -__int_as_float(0x7f800000), l = 0.0f;
  const int keys = causal ? i + 1 : N;
  for (int j = 0; j < keys; ++j) {
    float s = 0.0f;
#pragma unroll
    for (int t = 0; t < MAX_D / 32; ++t) {
      const int c = lane + 32 * t;
      if (c < d) s += qr[t] * ToFloat(kh[(long long)j * d + c]);
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
      if (c < d) acc[t] = acc[t] * correction + p * ToFloat(vh[(long long)j * d + c]);
    }
    m = m_new;
  }
#pragma unroll
  for (int t = 0; t < MAX_D / 32; ++t) {
    const int c = lane + 32 * t;
    if (c < d) o[row * d + c] = FromFloat(acc[t] / l);
  }
}
