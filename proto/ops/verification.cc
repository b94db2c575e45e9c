#include "proto/ops/verification.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "kernels/common/status_macros.h"

namespace kbench::proto::ops {
namespace {

// Why `c` fails `t`, in words, with `what` naming the comparison; empty
// when it passes.
std::string FailureOf(const kernels::Comparison& c, const kernels::Tolerance& t,
                      const std::string& what) {
  if (c.non_finite > 0)
    return absl::StrCat(WithCommas(c.non_finite), " non-finite elements (NaN or infinity) ", what);
  if (c.over_tolerance > 0)
    return absl::StrFormat("%s elements over atol + rtol * |ref| (%.3g + %.3g * |ref|) %s",
                           WithCommas(c.over_tolerance), t.element.atol, t.element.rtol, what);
  if (c.rel_l2_error() > t.rel_l2)
    return absl::StrFormat("relative L2 error %.3g over its tolerance %.3g %s", c.rel_l2_error(),
                           t.rel_l2, what);
  if (c.checked == 0) return absl::StrCat("nothing checked ", what);
  return "";
}

}  // namespace

absl::Status CheckRange(const std::string& field, uint64_t value, uint64_t low, uint64_t high) {
  if (value >= low && value <= high) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat(field, " must be between ", low, " and ", high, ", got ", value));
}

absl::StatusOr<v1::Verification> CheckOutput(DeviceOutput& output,
                                             const kernels::OpTolerances& tolerances,
                                             const std::vector<OutputRange>& ranges,
                                             std::span<const double> exact, std::string method) {
  KBENCH_ASSIGN_OR_RETURN(const kernels::Comparison all,
                          output.CompareWithReference(tolerances.against_reference.element));
  kernels::Comparison sampled, reference;
  std::vector<float> out, ref;
  size_t e = 0;
  for (const OutputRange& range : ranges) {
    out.resize(size_t(range.count));
    ref.resize(size_t(range.count));
    KBENCH_RETURN_IF_ERROR(output.Read(OutputBuffer::kOutput, range.first, out));
    KBENCH_RETURN_IF_ERROR(output.Read(OutputBuffer::kReference, range.first, ref));
    for (int64_t i = 0; i < range.count; ++i, ++e) {
      sampled.Add(range.first + i, out[i], exact[e], tolerances.variant.element);
      reference.Add(range.first + i, ref[i], exact[e], tolerances.reference.element);
    }
  }

  v1::Verification v;
  v.set_max_abs_error(all.max_abs_error);
  v.set_rel_l2_error(all.rel_l2_error());
  v.set_tolerance(tolerances.against_reference.rel_l2);
  v.set_atol(tolerances.against_reference.element.atol);
  v.set_rtol(tolerances.against_reference.element.rtol);
  v.set_elements_checked(all.checked);
  v.set_non_finite(all.non_finite);
  v.set_elements_over_tolerance(all.over_tolerance);
  v.set_reference_rel_l2_error(reference.rel_l2_error());
  v.set_method(std::move(method));
  if (all.worst_index >= 0) {
    float worst_out = 0, worst_ref = 0;
    KBENCH_RETURN_IF_ERROR(
        output.Read(OutputBuffer::kOutput, all.worst_index, std::span(&worst_out, 1)));
    KBENCH_RETURN_IF_ERROR(
        output.Read(OutputBuffer::kReference, all.worst_index, std::span(&worst_ref, 1)));
    v.set_worst_element(uint64_t(all.worst_index));
    v.set_worst_output(worst_out);
    v.set_worst_reference(worst_ref);
  }

  KBENCH_ASSIGN_OR_RETURN(const uint64_t past_the_end, output.GuardBytesWritten());
  KBENCH_ASSIGN_OR_RETURN(const std::vector<DeviceOutput::ChangedInput> changed,
                          output.InputsChanged());

  const std::string against_device = "against the device reference";
  std::string failure;
  if (past_the_end > 0) {
    failure = absl::StrCat("wrote past the end of the output: ", WithCommas(past_the_end),
                           " bytes of the guard region after it changed");
  } else if (!changed.empty()) {
    failure = "wrote into its inputs, which are read-only:";
    for (size_t i = 0; i < changed.size(); ++i)
      absl::StrAppend(&failure, i ? "," : "", " ", WithCommas(changed[i].elements),
                      changed[i].elements == 1 ? " element of " : " elements of ", changed[i].name,
                      " not as drawn");
  } else if (all.non_finite > 0) {
    failure = FailureOf(all, tolerances.against_reference, "in the output");
  } else if (std::string f = FailureOf(reference, tolerances.reference,
                                       "in the device reference against the double "
                                       "reference (the reference itself is wrong)");
             !f.empty()) {
    failure = std::move(f);
  } else if (std::string f = FailureOf(all, tolerances.against_reference, against_device);
             !f.empty()) {
    failure = std::move(f);
  } else {
    failure = FailureOf(sampled, tolerances.variant,
                        "in the sampled elements against the double reference");
  }
  v.set_passed(failure.empty());
  v.set_failure(std::move(failure));
  return v;
}

std::string WithCommas(uint64_t value) {
  std::string digits = absl::StrCat(value), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

}  // namespace kbench::proto::ops
