// Error metrics of an output against its reference: the per-element test
// |out - ref| <= atol + rtol * |ref|, the relative L2 error and a count of
// non-finite values. A Comparison is what a device's comparison kernel
// reduces an output to (server/worker/device.h) and what the host accumulates
// element by element; both fill the same fields with the same rules.
#pragma once

#include <cstdint>
#include <span>

namespace kbench::kernels {

// The per-element test: |out - ref| <= atol + rtol * |ref|.
struct ElementTolerance {
  double atol = 0;
  double rtol = 0;
};

// What an output must meet: every element within `element`, and
// |out - ref|_2 / |ref|_2 <= rel_l2.
struct Tolerance {
  ElementTolerance element;
  double rel_l2 = 0;
};

struct Comparison {
  uint64_t checked = 0;
  // Elements of the output that are NaN or infinite (never within
  // tolerance; not counted in over_tolerance).
  uint64_t non_finite = 0;
  // Finite elements failing the per-element test.
  uint64_t over_tolerance = 0;
  // Over finite elements.
  double max_abs_error = 0;
  double sum_sq_error = 0;
  // Over every element (the reference is always finite).
  double sum_sq_ref = 0;
  // The element with the largest excess |out - ref| / (atol + rtol * |ref|)
  // (a non-finite element has infinite excess); the lowest index among
  // equals; -1 when nothing was checked.
  int64_t worst_index = -1;
  double worst_excess = 0;

  // Adds element `index`: `out` from the output, `ref` from the reference.
  void Add(int64_t index, float out, double ref, const ElementTolerance& tolerance);
  // Folds in the comparison of other elements (a reduction's combine step).
  void Merge(const Comparison& other);

  // |out - ref|_2 / |ref|_2: 0 when both norms are 0, infinity when any
  // element is non-finite or only the reference is 0.
  double rel_l2_error() const;
  // Something was checked, nothing is non-finite or over the per-element
  // tolerance, and rel_l2_error() <= tolerance.rel_l2.
  bool Passes(const Tolerance& tolerance) const;
};

// out[i] against ref[i] for every i (same sizes); indices count from
// `first_index`.
Comparison Compare(std::span<const float> out, std::span<const float> ref,
                   const ElementTolerance& tolerance, int64_t first_index = 0);

}  // namespace kbench::kernels
