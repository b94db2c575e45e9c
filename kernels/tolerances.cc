#include "kernels/tolerances.h"

namespace kbench::kernels {

Tolerance OneRounding(DType dtype) {
  const DTypeInfo& t = InfoOf(dtype);
  return {{t.min_normal, t.unit_roundoff}, t.unit_roundoff};
}

OpTolerances WithAgainstReference(const Tolerance& variant, const Tolerance& reference) {
  return {variant,
          reference,
          {{variant.element.atol + reference.element.atol,
            variant.element.rtol + reference.element.rtol},
           variant.rel_l2 + reference.rel_l2}};
}

}  // namespace kbench::kernels
