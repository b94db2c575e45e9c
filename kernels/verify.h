// Error metrics of an output against its reference. Accumulates element by
// element so a caller can check all of an output or a sample of it.
#pragma once

#include <cstdint>

namespace kbench::kernels {

class ErrorStats {
 public:
  // out: what the kernel wrote; ref: the double reference.
  void Add(float out, double ref);

  double max_abs_error() const { return max_abs_; }
  // |out - ref|_2 / |ref|_2 over the elements added; 0 when both are 0,
  // infinity when any element was not finite.
  double rel_l2_error() const;
  uint64_t checked() const { return checked_; }
  uint64_t non_finite() const { return non_finite_; }
  // No element NaN or infinite, and rel_l2_error() <= tolerance.
  bool Passes(double tolerance) const;

 private:
  double max_abs_ = 0;
  double sum_sq_error_ = 0;
  double sum_sq_ref_ = 0;
  uint64_t checked_ = 0;
  uint64_t non_finite_ = 0;
};

}  // namespace kbench::kernels
