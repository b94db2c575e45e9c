// Device helpers of the fused attention kernels: the PTX instructions they are
// built from (cp.async, ldmatrix, mma.sync m16n8k16 and m16n8k8 tf32, ex2),
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
__device__ __forceinline__ void CpAsync16(uint32_t dst, const void* src,
                                          int src_bytes) {
  asm volatile("cp.async.cg.shared.global [%0+%3], [%1], 16, %2;\n" ::"r"(dst),
               "l"(src), "r"(src_bytes), "n"(kDstImm));
}
__device__ __forceinline__ void CpAsyncCommit() {
  asm volatile("cp.async.commit_group;\n" ::);
}
template <int kPending>
__device__ __forceinline__ void CpAsyncWait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending));
}

// Shared address addr + kImm.
template <int kImm = 0>
__device__ __forceinline__ void LdMatrixX4(uint32_t (&r)[4], uint32_t addr) {
  asm volatile(
      "ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4+%5];\n"
      : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
      : "r"(addr), "n"(kImm));
}
template <int kImm = 0>
__device__ __forceinline__ void LdMatrixX4Trans(uint32_t (&r)[4],
                                                uint32_t addr) {
  asm volatile(
      "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4+%5];\n"
      : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
      : "r"(addr), "n"(kImm));
}

// The 32 bits at shared address addr + kImm.
template <int kImm = 0>
__device__ __forceinline__ uint32_t LdShared32(uint32_t addr) {
  uint32_t r;
  asm volatile("ld.shared.b32 %0, [%1+%2];\n" : "=r"(r) : "r"(addr), "n"(kImm));
  return r;
}

// The 16 bytes at shared address addr + kImm as four floats, and back.
template <int kImm = 0>
__device__ __forceinline__ float4 LdShared128(uint32_t addr) {
  float4 r;
  asm volatile("ld.shared.v4.f32 {%0,%1,%2,%3}, [%4+%5];\n"
               : "=f"(r.x), "=f"(r.y), "=f"(r.z), "=f"(r.w)
               : "r"(addr), "n"(kImm));
  return r;
}
template <int kImm = 0>
__device__ __forceinline__ void StShared128(uint32_t addr, float4 x) {
  asm volatile("st.shared.v4.f32 [%0+%1], {%2,%3,%4,%5};\n" ::"r"(addr), "n"(kImm),
               "f"(x.x), "f"(x.y), "f"(x.z), "f"(x.w)
               : "memory");
}

// D = A B + D, fp32 accumulators; T is __half or __nv_bfloat16.
template <typename T>
__device__ __forceinline__ void Mma16816(float (&d)[4], const uint32_t (&a)[4],
                                         uint32_t b0, uint32_t b1);
template <>
__device__ __forceinline__ void Mma16816<__half>(float (&d)[4],
                                                 const uint32_t (&a)[4],
                                                 uint32_t b0, uint32_t b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
      "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
template <>
__device__ __forceinline__ void Mma16816<__nv_bfloat16>(
    float (&d)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
      "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// fp32 on tensor cores, as 3xTF32 (CUTLASS's OpMultiplyAddFastF32): x =
// big + small, big = x rounded to tf32 (10-bit mantissa), small = the rest
// rounded to tf32, and a b ~ big_a big_b + big_a small_b + small_a big_b;
// the dropped small_a small_b and the rounding of the smalls are about
// 2^-22 of |a b|, near fp32's own 2^-24.
struct Tf32Pair {
  uint32_t big, small;
};
__device__ __forceinline__ uint32_t ToTf32(float x) {
  uint32_t r;
  asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(x));
  return r;
}
__device__ __forceinline__ Tf32Pair SplitTf32(uint32_t bits) {
  const uint32_t big = ToTf32(__uint_as_float(bits));
  return {big, ToTf32(__uint_as_float(bits) - __uint_as_float(big))};
}
__device__ __forceinline__ Tf32Pair SplitTf32(float x) { return SplitTf32(__float_as_uint(x)); }
// The same with the small half left in fp32: the tensor cores read a tf32
// operand's top 19 bits, so it is truncated rather than rounded (as
// CUTLASS's FastF32 does), about 2^-21 of |x| instead of 2^-22, one
// instruction fewer. For splits made per warp and per tile (Q, P).
__device__ __forceinline__ Tf32Pair SplitTf32Fast(uint32_t bits) {
  const uint32_t big = ToTf32(__uint_as_float(bits));
  return {big, __float_as_uint(__uint_as_float(bits) - __uint_as_float(big))};
}

// mma.sync.m16n8k8 tf32 (fp32 accumulators), fragments as m16n8k16's with
// one 32-bit element a register (g = lane / 4, t = lane % 4):
//   A (16x8): a0 (row g, col t), a1 (row g+8, col t), a2 (row g, col t+4),
//     a3 (row g+8, col t+4);  B (8x8): b0 (k t, col g), b1 (k t+4, col g).
// ldmatrix.x4 of fp32 rows gives exactly these: an 8x8 b16 matrix is 8 rows
// of 4 floats, and a lane receives float t of row g.
// Volatile like the other mmas, so products issue in program order: the
// callers order them so that back-to-back products go to different
// accumulators. (Left to the compiler, it hoisted every shared-memory load
// ahead of them and ran out of registers.)
__device__ __forceinline__ void Mma1688Tf32(float (&d)[4], const uint32_t (&a)[4],
                                            uint32_t b0, uint32_t b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 "
      "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
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
__device__ __forceinline__ uint32_t PackPair<__nv_bfloat16>(float lo,
                                                            float hi) {
  const __nv_bfloat162 h = __floats2bfloat162_rn(lo, hi);
  return *reinterpret_cast<const uint32_t*>(&h);
}

// 2^x by the special-function unit (relative error about 2^-22); ex2(-inf)
// is +0, which is how masked scores drop out.
__device__ __forceinline__ float Exp2(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;\n" : "=f"(y) : "f"(x));
  return y;
}

}  // namespace kbench::kernels::cuda::ptx
