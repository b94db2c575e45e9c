// kbench: grid=cdiv(n,256) block=256 entry=vector_add_naive
// Vector add, naive: one element per thread, the tail masked. The server
// defines kbench_t (float for fp32) before this file; docs/KERNELS.md.
extern "C" __global__ void vector_add_naive(const kbench_t* a, const kbench_t* b, kbench_t* c,
                                            long long n) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}
