// What each op's output is held to, per dtype: a per-element test
// |out - ref| <= atol + rtol * |ref| and a relative L2 bound, derived from
// the dtype's unit roundoff (dtype.h) and the op's reduction lengths. Each
// op's bounds and their derivation live in its folder
// (kernels/<op>/tolerances.cc); the ops (proto/ops/<op>/) and the tools take
// their tolerances from there only. This file holds what they share.
//
// Three comparisons, three tolerances:
//   variant            a variant's output against the exact result (the
//                      double-precision host reference, <op>/reference.h);
//   reference          the device's fp32 reference (<op>/simple_reference.h
//                      on the CPU; its CUDA twin) against the exact result;
//   against_reference  a variant against the device reference, every
//                      element: the sum of the two above (triangle
//                      inequality: |out - dev| <= |out - x| + |dev - x|).
#pragma once

#include "kernels/dtype.h"
#include "kernels/verify.h"

namespace kbench::kernels {

struct OpTolerances {
  Tolerance variant;
  Tolerance reference;
  Tolerance against_reference;
};

// Notation of the derivations: u = 2^-24, the fp32 unit roundoff (every
// kernel accumulates in fp32); u_t, the unit roundoff of the run's dtype
// (fp32 2^-24 = 6.0e-8, fp16 2^-11 = 4.9e-4, bf16 2^-8 = 3.9e-3).
//
// Facts the bounds rest on:
//   - Inputs are rounded to the dtype before any reference sees them
//     (seeded_input.h), so input rounding is not an error: the exact result
//     is that of the rounded inputs.
//   - A sum of n rounded terms is off by at most (n u) * sum |terms| in the
//     worst case, and by lambda sqrt(n) u * sum |terms| with probability
//     near 1 for lambda of a few (Higham and Mary, "A new approach to
//     probabilistic rounding error analysis", SIAM J. Sci. Comput. 2019).
//     The worst case at n = 65536 is 400x the errors seen, so the
//     probabilistic bound is used, with lambda = kLambda.
inline constexpr double kFp32Roundoff = 0x1p-24;
inline constexpr double kLambda = 4;

// The exact result rounded once to `dtype`: |out - x| <= u_t |x| (rtol =
// u_t); a result below the smallest normal is rounded with the subnormal
// spacing or flushed to zero (atol = that smallest normal). The relative L2
// error of roundings each at most u_t relative is at most u_t.
Tolerance OneRounding(DType dtype);

// An op's tolerances from its variant and reference bounds:
// against_reference is their sum.
OpTolerances WithAgainstReference(const Tolerance& variant, const Tolerance& reference);

}  // namespace kbench::kernels
