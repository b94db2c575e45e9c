#include "kernels/verify.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace kbench::kernels {

void ErrorStats::Add(float out, double ref) {
  ++checked_;
  sum_sq_ref_ += ref * ref;
  if (!std::isfinite(out)) {
    ++non_finite_;
    max_abs_ = std::numeric_limits<double>::infinity();
    return;
  }
  const double err = double(out) - ref;
  max_abs_ = std::max(max_abs_, std::abs(err));
  sum_sq_error_ += err * err;
}

double ErrorStats::rel_l2_error() const {
  if (non_finite_ > 0) return std::numeric_limits<double>::infinity();
  if (sum_sq_ref_ == 0) {
    return sum_sq_error_ == 0 ? 0 : std::numeric_limits<double>::infinity();
  }
  return std::sqrt(sum_sq_error_ / sum_sq_ref_);
}

bool ErrorStats::Passes(double tolerance) const {
  return checked_ > 0 && non_finite_ == 0 && rel_l2_error() <= tolerance;
}

}  // namespace kbench::kernels
