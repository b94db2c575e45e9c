// RunWgmmaFp8Probe (gpu_wgmma_fp8_probe.h).
#include "tests/gpu_wgmma_fp8_probe.h"

#include "kernels/cuda/attention/attention_fused_fp8.h"
#include "kernels/cuda/attention/attention_fused_wgmma.h"
#include "kernels/cuda/attention/attention_ptx.cuh"
#include "kernels/cuda/attention/fp8_operands.cuh"
#include "kernels/cuda/attention/hopper_ptx.cuh"

namespace kbench::tests {
namespace {

namespace kc = kernels::cuda;
constexpr int kRows = 64, kKeys = 128, kD = 128;
constexpr int kQ = 0, kK = kRows * kD, kVt = kK + kKeys * kD, kSmem = kVt + kD * kKeys + 1024;

// Byte b of row r of a tile of 128-byte rows, as the copy engine's
// 128-byte swizzle places it.
__device__ int Swizzled(int r, int b) { return r * 128 + ((((b >> 4) ^ (r & 7))) << 4) + (b & 15); }

// The accumulators of a 64 x 128 product to out (row-major).
__device__ void Store(const float (&acc)[64], float* out) {
  const int t = threadIdx.x, w = t / 32, g = t % 32 / 4, q = t % 4;
  for (int nb = 0; nb < 16; ++nb)
    for (int h = 0; h < 2; ++h)
      for (int e = 0; e < 2; ++e)
        out[(16 * w + g + 8 * h) * 128 + 8 * nb + 2 * q + e] = acc[4 * nb + 2 * h + e];
}

__global__ void __launch_bounds__(128)
    WgmmaFp8ProbeKernel(const uint8_t* q, const uint8_t* k, const uint8_t* v, float* s_out,
                        float* o_out) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 900 && defined(__CUDA_ARCH_FEAT_SM90_ALL)
  extern __shared__ unsigned char smem_raw[];
  const uint32_t base = (kc::ptx::SharedAddress(smem_raw) + 1023) & ~1023u;
  unsigned char* tile = smem_raw + (base - kc::ptx::SharedAddress(smem_raw));
  const int t = threadIdx.x;
  for (int i = t; i < kRows * kD; i += 128) tile[kQ + Swizzled(i / kD, i % kD)] = q[i];
  for (int i = t; i < kKeys * kD; i += 128) tile[kK + Swizzled(i / kD, i % kD)] = k[i];
  for (int i = t; i < kD * kKeys; i += 128) {
    const int c = i / kKeys, p = i % kKeys;
    const int key = (p & ~31) + kc::Fp8VtKey(p & 31);
    tile[kVt + Swizzled(c, p)] = v[key * kD + c];
  }
  kc::hopper::FenceProxyAsync();
  __syncthreads();

  float acc_s[64];
  kc::hopper::WgmmaFence();
  for (int kk = 0; kk < kD / 32; ++kk)
    kc::hopper::WgmmaSSFp8<kKeys>(acc_s, kc::hopper::Descriptor(base + kQ + 32 * kk, 16, 1024),
                                  kc::hopper::Descriptor(base + kK + 32 * kk, 16, 1024), kk > 0);
  kc::hopper::WgmmaCommit();
  kc::hopper::WgmmaWait<0>();
  kc::hopper::FenceRegisters(acc_s);
  Store(acc_s, s_out);

  uint32_t pa[kKeys / 32][4];
  kc::AccumulatorsToFp8A<kKeys>(acc_s, pa);
  float acc_o[64];
  for (int e = 0; e < 64; ++e) acc_o[e] = 0;
  kc::hopper::WgmmaFence();
  for (int kk = 0; kk < kKeys / 32; ++kk)
    kc::hopper::WgmmaRSFp8<kD>(acc_o, pa[kk],
                               kc::hopper::Descriptor(base + kVt + 32 * kk, 16, 1024), 1);
  kc::hopper::WgmmaCommit();
  kc::hopper::WgmmaWait<0>();
  kc::hopper::FenceRegisters(acc_o);
  Store(acc_o, o_out);
#endif
}

}  // namespace

cudaError_t RunWgmmaFp8Probe(const uint8_t* q, const uint8_t* k, const uint8_t* v, float* s,
                             float* o) {
  if (!kc::Sm90aDevice()) return cudaErrorNotSupported;
  if (cudaError_t e = cudaFuncSetAttribute(WgmmaFp8ProbeKernel,
                                           cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem);
      e != cudaSuccess)
    return e;
  WgmmaFp8ProbeKernel<<<1, 128, kSmem>>>(q, k, v, s, o);
  if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return e;
  return cudaDeviceSynchronize();
}

}  // namespace kbench::tests
