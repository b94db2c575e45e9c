// kbench: grid=min(cdiv(n,1024),65536) block=256 entry=vector_add_vectorized
// Vector add, vectorized: 16-byte loads and stores (float4), a grid-stride
// loop (so any grid covers any n), and a scalar tail for the last n % 4
// elements. fp32 only (vector add's kernels take fp32). The device's
// buffers are 256-byte aligned, so a, b and c are float4-aligned.
extern "C" __global__ void vector_add_vectorized(const kbench_t* a, const kbench_t* b, kbench_t* c,
                                                 long long n) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  const long long first = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  const long long quads = n / 4;
  const float4* a4 = reinterpret_cast<const float4*>(a);
  const float4* b4 = reinterpret_cast<const float4*>(b);
  float4* c4 = reinterpret_cast<float4*>(c);
  for (long long i = first; i < quads; i += stride) {
    const float4 x = a4[i], y = b4[i];
    c4[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
  }
  for (long long i = 4 * quads + first; i < n; i += stride) c[i] = a[i] + b[i];
}
