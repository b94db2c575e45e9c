#include "server/ops/verification.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace kbench::ops {

absl::Status CheckRange(const std::string& field, uint64_t value, uint64_t low,
                        uint64_t high) {
  if (value >= low && value <= high) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      field, " must be between ", low, " and ", high, ", got ", value));
}

v1::Verification ToVerification(const kernels::ErrorStats& errors,
                                double tolerance, std::string method) {
  v1::Verification v;
  v.set_passed(errors.Passes(tolerance));
  v.set_max_abs_error(errors.max_abs_error());
  v.set_rel_l2_error(errors.rel_l2_error());
  v.set_tolerance(tolerance);
  v.set_elements_checked(errors.checked());
  v.set_non_finite(errors.non_finite());
  v.set_method(std::move(method));
  return v;
}

}  // namespace kbench::ops
