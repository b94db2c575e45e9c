#include "server/run/validation.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "kernels/common/status_macros.h"
#include "proto/ops/dtypes.h"
#include "proto/ops/registry.h"
#include "proto/ops/verification.h"
#include "server/common/echo.h"
#include "server/run/kernel_admission.h"
#include "server/run/timing_resolution.h"
#include "server/run/utf8.h"

namespace kbench::server {
namespace {

std::string OpNames() {
  std::vector<std::string> names;
  for (const proto::ops::Op* op : proto::ops::AllOps()) names.emplace_back(op->name());
  return absl::StrJoin(names, ", ");
}

// The variants of the request (all the backend runs when none are named),
// each known, run by the backend, and named once.
absl::StatusOr<std::vector<const proto::ops::VariantSpec*>> ChooseVariants(
    const proto::ops::Op& op, const v1::RunRequest& request, std::string_view backend,
    const v1::Limits& limits) {
  std::vector<std::string> offered;
  for (const proto::ops::VariantSpec& v : op.variants())
    if (v.On(backend) != nullptr) offered.push_back(v.name);
  if (offered.empty())
    return absl::InvalidArgumentError(absl::StrCat("variants: this server's backend (",
                                                   std::string(backend), ") runs no ",
                                                   std::string(op.name()), " variant"));
  if (uint64_t(request.variants_size()) > limits.max_variants())
    return absl::InvalidArgumentError(absl::StrCat("variants: at most ", limits.max_variants(),
                                                   " per run, got ", request.variants_size()));
  std::vector<std::string> names(request.variants().begin(), request.variants().end());
  if (names.empty()) names = offered;
  std::vector<const proto::ops::VariantSpec*> chosen;
  for (size_t i = 0; i < names.size(); ++i) {
    const proto::ops::VariantSpec* spec = op.FindVariant(names[i]);
    if (spec == nullptr || spec->On(backend) == nullptr)
      return absl::InvalidArgumentError(
          absl::StrCat("variants: unknown ", std::string(op.name()), " variant ", Echo(names[i]),
                       "; supported: ", absl::StrJoin(offered, ", ")));
    if (std::find(chosen.begin(), chosen.end(), spec) != chosen.end())
      return absl::InvalidArgumentError(
          absl::StrCat("variants: ", Echo(names[i]), " is named twice"));
    chosen.push_back(spec);
  }
  return chosen;
}

absl::Status CheckDType(const proto::ops::Op& op, v1::DType dtype,
                        const std::vector<const proto::ops::VariantSpec*>& variants,
                        std::string_view backend) {
  if (dtype != v1::DTYPE_UNSPECIFIED && !v1::DType_IsValid(dtype))
    return absl::InvalidArgumentError(absl::StrCat("dtype: unknown value ", int(dtype)));
  const kernels::DType wanted = proto::ops::FromProto(dtype);
  for (const proto::ops::VariantSpec* variant : variants) {
    const std::vector<kernels::DType>& dtypes = variant->On(backend)->dtypes;
    if (std::find(dtypes.begin(), dtypes.end(), wanted) != dtypes.end()) continue;
    std::vector<std::string> names;
    for (kernels::DType d : dtypes) names.emplace_back(kernels::DTypeName(d));
    return absl::InvalidArgumentError(absl::StrCat(
        "dtype ", kernels::DTypeName(wanted), " is not supported by ", std::string(op.name()),
        " variant ", variant->name, " on this server; supported: ", absl::StrJoin(names, ", ")));
  }
  return absl::OkStatus();
}

absl::Status CheckLabel(const std::string& label, const v1::Limits& limits) {
  if (label.size() > limits.max_label_length())
    return absl::InvalidArgumentError(absl::StrCat(
        "label must be at most ", limits.max_label_length(), " bytes, got ", label.size()));
  return CheckUtf8("label", label);
}

}  // namespace

absl::StatusOr<AdmittedRun> Admit(const v1::RunRequest& request, const v1::Limits& limits,
                                  std::string_view backend, const TimingPlan& defaults) {
  const proto::ops::Op* op = proto::ops::OpOf(request);
  if (op == nullptr)
    return absl::InvalidArgumentError(
        absl::StrCat("problem: the request names no op; one of ", OpNames()));
  KBENCH_RETURN_IF_ERROR(op->CheckProblem(request, limits));
  for (int i = 0; i < request.variants_size(); ++i)
    KBENCH_RETURN_IF_ERROR(CheckUtf8(absl::StrCat("variants[", i, "]"), request.variants(i)));
  KBENCH_ASSIGN_OR_RETURN(std::vector<const proto::ops::VariantSpec*> variants,
                          ChooseVariants(*op, request, backend, limits));
  KBENCH_RETURN_IF_ERROR(CheckDType(*op, request.dtype(), variants, backend));
  KBENCH_RETURN_IF_ERROR(op->CheckVariants(request, variants, backend, limits));
  KBENCH_ASSIGN_OR_RETURN(TimingPlan plan, ValidateTiming(request.timing(), limits, defaults));
  KBENCH_RETURN_IF_ERROR(CheckLabel(request.label(), limits));
  if (!request.submission_id().empty())
    KBENCH_RETURN_IF_ERROR(CheckSubmissionId("submission_id", request.submission_id()));
  KBENCH_RETURN_IF_ERROR(AdmitKernels(request, *op, limits, backend));
  if (request.fault() != v1::FAULT_NONE && !v1::Fault_IsValid(request.fault()))
    return absl::InvalidArgumentError(absl::StrCat("fault: unknown value ", int(request.fault())));

  AdmittedRun run;
  run.problem.op = op;
  run.problem.request = request;
  // Fields this server does not know go no further (the worker, the store).
  run.problem.request.DiscardUnknownFields();
  run.problem.dtype = proto::ops::FromProto(request.dtype());
  for (const proto::ops::VariantSpec* v : variants) run.problem.variants.push_back(v->id);
  run.plan = plan;
  return run;
}

absl::Status CheckSubmissionId(std::string_view field, std::string_view id) {
  const bool hex = id.size() == kSubmissionIdPrefix.size() + kSubmissionIdDigits &&
                   id.substr(0, kSubmissionIdPrefix.size()) == kSubmissionIdPrefix &&
                   std::all_of(id.begin() + kSubmissionIdPrefix.size(), id.end(), [](char c) {
                     return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
                   });
  if (hex) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      std::string(field), ": not a submission id (\"", std::string(kSubmissionIdPrefix), "\" and ",
      kSubmissionIdDigits, " hex digits, as Submit returns it)"));
}

v1::RunRequest Resolved(const AdmittedRun& run) {
  v1::RunRequest request = run.problem.request;
  request.set_dtype(proto::ops::ToProto(run.problem.dtype));
  request.clear_variants();
  for (size_t i = 0; i < run.problem.variants.size(); ++i)
    request.add_variants(run.problem.VariantName(i));
  *request.mutable_timing() = ToProto(run.plan);
  return request;
}

}  // namespace kbench::server
