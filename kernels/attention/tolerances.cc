// The derivation of attention's bounds, in the notation of
// kernels/tolerances.h.
#include "kernels/attention/tolerances.h"

#include <cmath>

namespace kbench::kernels {
namespace {

constexpr double kU = kFp32Roundoff;

// Attention, one output element O = sum_j p_j v_j with sum_j p_j = 1 and
// |v_j| < 1, so sum_j p_j |v_j| < 1 bounds every absolute term below.
//   score s_j = (q . k_j) / sqrt(d): d products of |q|, |k| < 1 summed in
//     fp32: lambda sqrt(d) u * d, times 1/sqrt(d): abs error lambda d u.
//     exp turns an absolute error of s into the same relative error of p.
//   max subtraction, exp (CUDA's fp32 fused kernel uses ex2.approx, at most
//     2 ulp, after a rounded multiply by log2 e) and the division by the
//     row sum: 5 u relative per p_j.
//   the row sum of seq_len terms and, in fused kernels, the rescaling of
//     the accumulator by exp(m_old - m_new) once per key tile (at most
//     seq_len times): lambda sqrt(N) u each, 2 lambda sqrt(N) u in all.
//   P V: a sum of N terms: lambda sqrt(N) u * sum p |v|.
//   16-bit only: P is rounded to the dtype before P V (u_t relative per
//     p_j: u_t * sum p |v| at most), and O is rounded to the dtype (u_t |O|,
//     fp32 outputs: u |O|).
// So atol = lambda d u + 5 u + 3 lambda sqrt(N) u (+ u_t for 16-bit P) and
// rtol = u_t. At d = 64, N = 4096: fp32 atol 6.1e-5 (outputs are ~1e-2),
// fp16 atol 5.5e-4, bf16 3.97e-3.
//
// Relative L2 (the statistical check that catches a small error spread
// over every element, which no per-element bound can): rounding errors are
// near uniform, RMS u_t / sqrt(3) relative. O and P rounding at 16 bits:
// two such, sqrt(2/3) u_t = 0.82 u_t (the fp16 error observed on an H200 is
// 3e-4 = 0.6 u_t); fp32 accumulation: lambda (sqrt(N) + sqrt(d)) u. So
// rel_l2 = 2 u_t + lambda (sqrt(N) + sqrt(d)) u: fp16 1.0e-3 at N = 4096,
// 2.4x the expected RMS (the old 1e-2 was 30x it, and passed a 2% error in
// the softmax scale); fp32 1.7e-5.
//
// CUDA's fused fp32 runs on the fp16 tensor cores in 3xFP16
// (attention_fused_mma.cu, attention_ptx.cuh's SplitHalves), each tensor
// first scaled exactly by a power of two that brings its largest magnitude
// into [2^14, 2^15): each operand is held to 2^-22 of itself (or 2^-39 of
// its tensor's largest magnitude, for elements that small), so
// a product is off by about 3 2^-22 of itself (12 u, with the dropped h1 h1
// term), and sums inside the tensor cores truncate. The bound above is not
// re-derived for that: at 12 u a product, random in sign, the score error
// stays below lambda d u for every head_dim the kernel runs (d >= 32), and
// the kernel keeps its truncating chains short (a tile's small products
// apart, P V 32 keys at a time, added in fp32). Measured over the
// H200 benchmark grid and low-parallelism shapes (docs/perf/data), its
// relative L2 errors are 1.7e-8 to 5.0e-7 (the 3xTF32 kernel it replaced:
// 2e-8 to 7e-7), at least 10x inside rel_l2.
Tolerance AttentionBound(DType output, bool rounds_p, const AttentionShape& shape) {
  const double d = double(shape.head_dim), n = double(shape.seq_len);
  const double u_t = InfoOf(output).unit_roundoff;
  const double fp32 = kLambda * d * kU + 5 * kU + 3 * kLambda * std::sqrt(n) * kU;
  return {{fp32 + (rounds_p ? u_t : 0), u_t},
          2 * u_t + kLambda * (std::sqrt(n) + std::sqrt(d)) * kU};
}

// fp8 (FlashAttention-3's FP8 forward pass: Q K^T and P V on FP8 tensor
// cores, P rounded to E4M3, O written in bf16), with u_p = 2^-4 (E4M3) and
// u_o = 2^-8 (bf16):
//   the inputs are exact E4M3 values times power-of-two scales
//     (dtype.h), so their products are exact in fp32 and the score is the
//     fp32 case's; the descale (q scale * k scale / sqrt(d)) is one more
//     rounding: u |s| <= sqrt(d) u.
//   P rounded to E4M3: u_p relative per p_j where p_j is normal in E4M3
//     (>= 2^-6; attention_fused_fp8.cu rounds 2^8 p_j, so p_j >= 2^-14
//     is enough there), so u_p * sum p |v| <= u_p absolute. For the seeded inputs
//     p_j stays normal: a score is a scaled sum of d products of
//     independent uniforms, near Gaussian with deviation 1/3, so the gap
//     between a row's largest score and another (a difference of two such,
//     deviation 0.47) reaches 3.4, where p_j = e^-3.4 > 2^-5, only beyond
//     seven deviations.
//   O rounded to bf16: u_o relative.
// So atol = the fp32 terms + sqrt(d) u + u_p, rtol = u_o. Relative L2: P's
// rounding errors, random in sign, are at most u_p / sqrt(3) RMS relative
// to O (O and its error are both sums of N terms p_j v_j, of random sign);
// O's rounding u_o / sqrt(3); so rel_l2 = u_p + u_o + the fp32 terms: at
// d = 128, N = 4096, atol 0.0626 and rel_l2 0.0664. An emulation of the
// FP8 kernel on the host (tests/cpu_kernels_test.cc) measures 0.022-0.028,
// 2.4-3x inside it, as the 16-bit bound is of its errors.
Tolerance Fp8AttentionBound(const AttentionShape& shape) {
  const double d = double(shape.head_dim), n = double(shape.seq_len);
  const double u_p = InfoOf(DType::kFp8).unit_roundoff;
  const double u_o = InfoOf(AttentionOutputDType(DType::kFp8)).unit_roundoff;
  const double fp32 =
      kLambda * d * kU + std::sqrt(d) * kU + 5 * kU + 3 * kLambda * std::sqrt(n) * kU;
  return {{fp32 + u_p, u_o}, u_p + u_o + kLambda * (std::sqrt(n) + std::sqrt(d)) * kU};
}

}  // namespace

DType AttentionOutputDType(DType dtype) { return dtype == DType::kFp8 ? DType::kBf16 : dtype; }

OpTolerances AttentionTolerances(DType dtype, const AttentionShape& shape) {
  const Tolerance reference = AttentionBound(DType::kFp32, /*rounds_p=*/false, shape);
  if (dtype == DType::kFp8) return WithAgainstReference(Fp8AttentionBound(shape), reference);
  return WithAgainstReference(AttentionBound(dtype, /*rounds_p=*/dtype != DType::kFp32, shape),
                              reference);
}

}  // namespace kbench::kernels
