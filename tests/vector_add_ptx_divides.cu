// A kernel vector_add_ptx_check.sh must refuse (tests/CMakeLists.txt runs
// the check on it and expects it to fail): a grid-stride loop the compiler
// unrolls, which divides for its trip count before the first load.
#include <cstdint>

__global__ void VectorAddVectorizedKernel(const float4* __restrict__ a,
                                          const float4* __restrict__ b, float4* __restrict__ c,
                                          int64_t n) {
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const float4 x = a[i], y = b[i];
    c[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
  }
}
