#include "kernels/cuda/comparison_partials.h"

namespace kbench::kernels::cuda {

Comparison MergePartials(std::span<const ComparisonPartial> partials) {
  Comparison total;
  for (const ComparisonPartial& p : partials) {
    Comparison c;
    c.checked = p.checked;
    c.non_finite = p.non_finite;
    c.over_tolerance = p.over_tolerance;
    c.max_abs_error = p.max_abs_error;
    c.sum_sq_error = p.sum_sq_error;
    c.sum_sq_ref = p.sum_sq_ref;
    c.worst_index = p.worst_index;
    c.worst_excess = p.worst_excess;
    total.Merge(c);
  }
  return total;
}

}  // namespace kbench::kernels::cuda
