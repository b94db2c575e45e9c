// Device helpers of the fused attention kernels: the PTX instructions they are
// built from (cp.async, ldmatrix, mma.sync m16n8k16, ex2, a quad's shuffles),
// each wrapped once so the kernels read as tile algebra. sm_80 and later
// (built for sm_90).
//
// Fragment layouts of mma.sync.m16n8k16 (g = lane / 4, t = lane % 4):
//   A (16x16, row-major), 4 regs of 2 elements:
//     a0 (row g, cols 2t..2t+1)   a1 (row g+8, cols 2t..2t+1)
//     a2 (row g, cols 2t+8..)     a3 (row g+8, cols 2t+8..)
//   B (16x8, "col": B[k][n]), 2 regs: b0 (k 2t..2t+1, col g), b1 (k 2t+8.., g)
//   C (16x8 fp32), 4 regs: c0 c1 (row g, cols 2t, 2t+1), c2 c3 (row g+8, ...)
// ldmatrix.x4: lanes 8i..8i+7 give the row addresses of 8x8 matrix i; each
// lane receives, from matrix i into reg i, row g, elements 2t and 2t+1 (with
// .trans: elements (2t, g) and (2t+1, g) of the matrix as stored).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

namespace kbench::kernels::cuda::ptx {

// Calls f(std::integral_constant<int, i>) for i in [kBegin, kEnd): a loop
// whose index is a constant expression, so it can name register-array
// elements and instruction immediates.
template <int kBegin, int kEnd, typename F>
__device__ __forceinline__ void StaticFor(F&& f) {
  if constexpr (kBegin < kEnd) {
    f(std::integral_constant<int, kBegin>{});
    StaticFor<kBegin + 1, kEnd>(f);
  }
}

__device__ __forceinline__ uint32_t SharedAddress(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

// 16-byte global -> shared copy; src_bytes = 0 writes 16 zero bytes and reads
// nothing (rows past the sequence end become zeros, never garbage).
// The shared address is dst + kDstImm: an immediate keeps loop-invariant
// tile addresses out of registers.
template <int kDstImm = 0>
__device__ __forceinline__ void CpAsync16(uint32_t dst, const void* src, int src_bytes) {
  asm volatile("cp.async.cg.shared.global [%0+%3], [%1], 16, %2;\n" ::"r"(dst), "l"(src),
               "r"(src_bytes), "n"(kDstImm));
}
__device__ __forceinline__ void CpAsyncCommit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int kPending>
__device__ __forceinline__ void CpAsyncWait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending));
}

// Shared address addr + kImm.
template <int kImm = 0>
__device__ __forceinline__ void LdMatrixX4(uint32_t (&r)[4], uint32_t addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4+%5];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr), "n"(kImm));
}
template <int kImm = 0>
__device__ __forceinline__ void LdMatrixX4Trans(uint32_t (&r)[4], uint32_t addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4+%5];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr), "n"(kImm));
}

// The 16 bytes at shared address addr + kImm as four floats.
template <int kImm = 0>
__device__ __forceinline__ float4 LdShared128(uint32_t addr) {
  float4 r;
  asm volatile("ld.shared.v4.f32 {%0,%1,%2,%3}, [%4+%5];\n"
               : "=f"(r.x), "=f"(r.y), "=f"(r.z), "=f"(r.w)
               : "r"(addr), "n"(kImm));
  return r;
}
// Two 32-bit words to shared address addr + kImm (8-byte aligned).
template <int kImm = 0>
__device__ __forceinline__ void StShared64(uint32_t addr, uint32_t lo, uint32_t hi) {
  asm volatile("st.shared.v2.b32 [%0+%1], {%2,%3};\n" ::"r"(addr), "n"(kImm), "r"(lo), "r"(hi)
               : "memory");
}
// D = A B + D, fp32 accumulators; T is __half or __nv_bfloat16.
template <typename T>
__device__ __forceinline__ void Mma16816(float (&d)[4], const uint32_t (&a)[4], uint32_t b0,
                                         uint32_t b1);
template <>
__device__ __forceinline__ void Mma16816<__half>(float (&d)[4], const uint32_t (&a)[4], uint32_t b0,
                                                 uint32_t b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
      "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
template <>
__device__ __forceinline__ void Mma16816<__nv_bfloat16>(float (&d)[4], const uint32_t (&a)[4],
                                                        uint32_t b0, uint32_t b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
      "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// fp32 on the fp16 tensor cores, as 3xFP16: x = h0 + h1, h0 = x rounded to
// fp16 and h1 = x - h0 (exact in fp32) rounded to fp16, so x is held to
// 2^-22 of itself (h1 keeps 11 of the bits h0 drops), and to 2^-25 in
// absolute terms below fp16's normal range (2^-14), where both pieces are
// subnormal; a b ~ h0_a h0_b + h0_a h1_b + h1_a h0_b, the dropped h1_a h1_b
// 2^-22 of |a b|. Inputs must lie within fp16's range (|x| < 65504): one
// beyond it becomes inf (the fp32 kernel scales each tensor into that
// range first, attention_fused_mma.cu's RangeShift). Splits a and b: h0
// and h1 as pairs (a in the low half), the layout of PackPair<__half>(a, b).
__device__ __forceinline__ void SplitHalves(float a, float b, uint32_t& h0, uint32_t& h1) {
  const __half2 big = __floats2half2_rn(a, b);
  const float2 back = __half22float2(big);
  const __half2 rest = __floats2half2_rn(a - back.x, b - back.y);
  h0 = *reinterpret_cast<const uint32_t*>(&big);
  h1 = *reinterpret_cast<const uint32_t*>(&rest);
}

// Two floats rounded to nearest into one register of T pairs, lo in the low
// half (the element with the lower column index).
template <typename T>
__device__ __forceinline__ uint32_t PackPair(float lo, float hi);
template <>
__device__ __forceinline__ uint32_t PackPair<__half>(float lo, float hi) {
  const __half2 h = __floats2half2_rn(lo, hi);
  return *reinterpret_cast<const uint32_t*>(&h);
}
template <>
__device__ __forceinline__ uint32_t PackPair<__nv_bfloat16>(float lo, float hi) {
  const __nv_bfloat162 h = __floats2bfloat162_rn(lo, hi);
  return *reinterpret_cast<const uint32_t*>(&h);
}

// A 4 x 4 transpose across the four lanes of a quad (lanes 4g .. 4g + 3, qd
// = lane % 4): on entry a[k] is this lane's element k; on return a[j] is
// lane j's element qd. Two butterfly stages of two shuffles each (xor 2,
// then xor 1), each lane sending the half of its elements its partner
// keeps. All 32 lanes must call it together. The fused kernels use it to
// turn an accumulator's 4-byte pairs (quad lane qd holds columns 2 qd,
// 2 qd + 1 of every 8-column block) into 16-byte rows of one block a lane.
__device__ __forceinline__ void QuadTranspose(uint32_t (&a)[4], int qd) {
  const bool hi = qd & 2;
#pragma unroll
  for (int l = 0; l < 2; ++l) {
    const uint32_t got = __shfl_xor_sync(~0u, hi ? a[l] : a[l + 2], 2);
    a[l] = hi ? got : a[l];
    a[l + 2] = hi ? a[l + 2] : got;
  }
  const bool odd = qd & 1;
#pragma unroll
  for (int b = 0; b < 4; b += 2) {
    const uint32_t got = __shfl_xor_sync(~0u, odd ? a[b] : a[b + 1], 1);
    a[b] = odd ? got : a[b];
    a[b + 1] = odd ? a[b + 1] : got;
  }
}

// 2^x by the special-function unit (relative error about 2^-22); ex2(-inf)
// is +0, which is how masked scores drop out.
__device__ __forceinline__ float Exp2(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;\n" : "=f"(y) : "f"(x));
  return y;
}

}  // namespace kbench::kernels::cuda::ptx
