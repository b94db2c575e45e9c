#include "kernels/verify.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace kbench::kernels {

void Comparison::Add(int64_t index, float out, double ref, const ElementTolerance& tolerance) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  ++checked;
  sum_sq_ref += ref * ref;
  double excess = kInf;
  if (!std::isfinite(out)) {
    ++non_finite;
  } else {
    const double err = std::abs(double(out) - ref);
    const double bound = tolerance.atol + tolerance.rtol * std::abs(ref);
    max_abs_error = std::max(max_abs_error, err);
    sum_sq_error += err * err;
    if (err > bound) ++over_tolerance;
    excess = bound > 0 ? err / bound : (err > 0 ? kInf : 0);
  }
  if (worst_index < 0 || excess > worst_excess || (excess == worst_excess && index < worst_index)) {
    worst_index = index;
    worst_excess = excess;
  }
}

void Comparison::Merge(const Comparison& other) {
  if (other.worst_index >= 0 &&
      (worst_index < 0 || other.worst_excess > worst_excess ||
       (other.worst_excess == worst_excess && other.worst_index < worst_index))) {
    worst_index = other.worst_index;
    worst_excess = other.worst_excess;
  }
  checked += other.checked;
  non_finite += other.non_finite;
  over_tolerance += other.over_tolerance;
  max_abs_error = std::max(max_abs_error, other.max_abs_error);
  sum_sq_error += other.sum_sq_error;
  sum_sq_ref += other.sum_sq_ref;
}

double Comparison::rel_l2_error() const {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  if (non_finite > 0) return kInf;
  if (sum_sq_ref == 0) return sum_sq_error == 0 ? 0 : kInf;
  return std::sqrt(sum_sq_error / sum_sq_ref);
}

bool Comparison::Passes(const Tolerance& tolerance) const {
  return checked > 0 && non_finite == 0 && over_tolerance == 0 &&
         rel_l2_error() <= tolerance.rel_l2;
}

Comparison Compare(std::span<const float> out, std::span<const float> ref,
                   const ElementTolerance& tolerance, int64_t first_index) {
  Comparison c;
  for (size_t i = 0; i < out.size(); ++i)
    c.Add(first_index + int64_t(i), out[i], double(ref[i]), tolerance);
  return c;
}

}  // namespace kbench::kernels
