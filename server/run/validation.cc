#include "server/run/validation.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "proto/ops/dtypes.h"
#include "proto/ops/registry.h"
#include "proto/ops/verification.h"
#include "server/run/kernel_admission.h"
#include "kernels/common/status_macros.h"

namespace kbench::server {
namespace {

using ops::CheckRange;

std::string OpNames() {
  std::vector<std::string> names;
  for (const ops::Op* op : ops::AllOps()) names.emplace_back(op->name());
  return absl::StrJoin(names, ", ");
}

// The variants of the request (all the backend runs when none are named),
// each known, run by the backend, and named once.
absl::StatusOr<std::vector<const ops::VariantSpec*>> ChooseVariants(
    const ops::Op& op, const v1::RunRequest& request, std::string_view backend,
    const v1::Limits& limits) {
  std::vector<std::string> offered;
  for (const ops::VariantSpec& v : op.variants())
    if (v.On(backend) != nullptr) offered.push_back(v.name);
  if (offered.empty())
    return absl::InvalidArgumentError(absl::StrCat(
        "variants: this server's backend (", std::string(backend), ") runs no ",
        std::string(op.name()), " variant"));
  if (uint64_t(request.variants_size()) > limits.max_variants())
    return absl::InvalidArgumentError(absl::StrCat(
        "variants: at most ", limits.max_variants(), " per run, got ",
        request.variants_size()));
  std::vector<std::string> names(request.variants().begin(), request.variants().end());
  if (names.empty()) names = offered;
  std::vector<const ops::VariantSpec*> chosen;
  for (size_t i = 0; i < names.size(); ++i) {
    const ops::VariantSpec* spec = op.FindVariant(names[i]);
    if (spec == nullptr || spec->On(backend) == nullptr)
      return absl::InvalidArgumentError(absl::StrCat(
          "variants: unknown ", std::string(op.name()), " variant '", names[i],
          "'; supported: ", absl::StrJoin(offered, ", ")));
    if (std::find(chosen.begin(), chosen.end(), spec) != chosen.end())
      return absl::InvalidArgumentError(
          absl::StrCat("variants: '", names[i], "' is named twice"));
    chosen.push_back(spec);
  }
  return chosen;
}

absl::Status CheckDType(const ops::Op& op, v1::DType dtype,
                        const std::vector<const ops::VariantSpec*>& variants,
                        std::string_view backend) {
  if (dtype != v1::DTYPE_UNSPECIFIED && !v1::DType_IsValid(dtype))
    return absl::InvalidArgumentError(absl::StrCat("dtype: unknown value ", int(dtype)));
  const kernels::DType wanted = ops::FromProto(dtype);
  for (const ops::VariantSpec* variant : variants) {
    const std::vector<kernels::DType>& dtypes = variant->On(backend)->dtypes;
    if (std::find(dtypes.begin(), dtypes.end(), wanted) != dtypes.end()) continue;
    std::vector<std::string> names;
    for (kernels::DType d : dtypes) names.emplace_back(kernels::DTypeName(d));
    return absl::InvalidArgumentError(absl::StrCat(
        "dtype ", kernels::DTypeName(wanted), " is not supported by ", std::string(op.name()),
        " variant ", variant->name, " on this server; supported: ",
        absl::StrJoin(names, ", ")));
  }
  return absl::OkStatus();
}

// The offset of the first byte of `text` that does not start a well-formed
// UTF-8 sequence (RFC 3629: no overlong forms, no surrogates, nothing above
// U+10FFFF), or npos when all of it is well formed.
size_t FirstInvalidUtf8(std::string_view text) {
  size_t i = 0;
  while (i < text.size()) {
    const auto b = static_cast<unsigned char>(text[i]);
    size_t length = 0;
    unsigned char low = 0x80, high = 0xbf;  // the range of the second byte
    if (b < 0x80) {
      length = 1;
    } else if (b >= 0xc2 && b <= 0xdf) {
      length = 2;
    } else if (b >= 0xe0 && b <= 0xef) {
      length = 3;
      if (b == 0xe0) low = 0xa0;
      if (b == 0xed) high = 0x9f;
    } else if (b >= 0xf0 && b <= 0xf4) {
      length = 4;
      if (b == 0xf0) low = 0x90;
      if (b == 0xf4) high = 0x8f;
    } else {
      return i;
    }
    if (i + length > text.size()) return i;
    for (size_t k = 1; k < length; ++k) {
      const auto c = static_cast<unsigned char>(text[i + k]);
      if (c < (k == 1 ? low : 0x80) || c > (k == 1 ? high : 0xbf)) return i;
    }
    i += length;
  }
  return std::string_view::npos;
}

// INVALID_ARGUMENT naming `field` unless `text` is well-formed UTF-8.
absl::Status CheckUtf8(const std::string& field, const std::string& text) {
  if (const size_t at = FirstInvalidUtf8(text); at != std::string_view::npos)
    return absl::InvalidArgumentError(absl::StrCat(
        field, " must be valid UTF-8 text; byte ", at, " (0x",
        absl::Hex(static_cast<unsigned char>(text[at]), absl::kZeroPad2),
        ") is not the start of a well-formed character"));
  return absl::OkStatus();
}

absl::Status CheckLabel(const std::string& label, const v1::Limits& limits) {
  if (label.size() > limits.max_label_length())
    return absl::InvalidArgumentError(absl::StrCat(
        "label must be at most ", limits.max_label_length(), " bytes, got ",
        label.size()));
  return CheckUtf8("label", label);
}

}  // namespace

absl::StatusOr<TimingPlan> ValidateTiming(const v1::TimingOptions& timing,
                                          const v1::Limits& limits,
                                          const TimingPlan& defaults) {
  TimingPlan plan = defaults;
  plan.warmup_runs = std::min(plan.warmup_runs, limits.max_warmup_runs());
  plan.max_samples = std::min(plan.max_samples, limits.max_samples());
  plan.time_budget_ms = std::min(plan.time_budget_ms, limits.max_time_budget_ms());
  if (timing.warmup_runs() > 0) plan.warmup_runs = timing.warmup_runs();
  if (timing.min_samples() > 0) plan.min_samples = timing.min_samples();
  if (timing.max_samples() > 0) plan.max_samples = timing.max_samples();
  if (timing.min_time_ms() != 0) plan.min_time_ms = timing.min_time_ms();
  if (timing.time_budget_ms() != 0) plan.time_budget_ms = timing.time_budget_ms();
  if (timing.target_rse() != 0) plan.target_rse = timing.target_rse();
  if (timing.mode() != v1::TIMING_MODE_UNSPECIFIED) plan.mode = timing.mode();
  if (timing.min_effect() != 0) plan.min_effect = timing.min_effect();
  plan.discard_throttled = timing.discard_throttled();
  // Defaults yield to the bounds the request set: a request for at most 3
  // samples, or a 50 ms budget, is not refused for the default minimums.
  if (timing.min_samples() == 0) plan.min_samples = std::min(plan.min_samples, plan.max_samples);
  if (timing.min_time_ms() == 0) plan.min_time_ms = std::min(plan.min_time_ms, plan.time_budget_ms);

  KBENCH_RETURN_IF_ERROR(CheckRange("timing.warmup_runs", plan.warmup_runs, 0,
                                    limits.max_warmup_runs()));
  KBENCH_RETURN_IF_ERROR(
      CheckRange("timing.max_samples", plan.max_samples, 1, limits.max_samples()));
  if (absl::Status s = CheckRange("timing.min_samples", plan.min_samples, 1, plan.max_samples);
      !s.ok())
    return absl::InvalidArgumentError(absl::StrCat(
        s.message(), " (the upper bound is timing.max_samples)"));
  const double budget_limit = limits.max_time_budget_ms();
  if (!(plan.time_budget_ms > 0 && plan.time_budget_ms <= budget_limit))
    return absl::InvalidArgumentError(absl::StrCat(
        "timing.time_budget_ms must be above 0 and at most ", budget_limit,
        ", got ", plan.time_budget_ms));
  if (!(plan.min_time_ms >= 0 && plan.min_time_ms <= plan.time_budget_ms))
    return absl::InvalidArgumentError(absl::StrCat(
        "timing.min_time_ms must be between 0 and timing.time_budget_ms (",
        plan.time_budget_ms, "), got ", plan.min_time_ms));
  if (!(plan.target_rse > 0 && plan.target_rse <= 1))
    return absl::InvalidArgumentError(absl::StrCat(
        "timing.target_rse must be above 0 and at most 1, got ", plan.target_rse));
  if (!(plan.min_effect >= 0 && plan.min_effect <= 1))
    return absl::InvalidArgumentError(absl::StrCat(
        "timing.min_effect must be between 0 and 1, got ", plan.min_effect));
  if (!v1::TimingMode_IsValid(plan.mode))
    return absl::InvalidArgumentError(
        absl::StrCat("timing.mode: unknown mode ", int(plan.mode)));
  plan.deadline_ms = 2 * plan.time_budget_ms + 1000 * limits.max_run_overhead_seconds();
  return plan;
}

absl::StatusOr<AdmittedRun> Admit(const v1::RunRequest& request,
                                  const v1::Limits& limits,
                                  std::string_view backend,
                                  const TimingPlan& defaults) {
  const ops::Op* op = ops::OpOf(request);
  if (op == nullptr)
    return absl::InvalidArgumentError(
        absl::StrCat("problem: the request names no op; one of ", OpNames()));
  KBENCH_RETURN_IF_ERROR(op->CheckProblem(request, limits));
  for (int i = 0; i < request.variants_size(); ++i)
    KBENCH_RETURN_IF_ERROR(
        CheckUtf8(absl::StrCat("variants[", i, "]"), request.variants(i)));
  KBENCH_ASSIGN_OR_RETURN(std::vector<const ops::VariantSpec*> variants,
                          ChooseVariants(*op, request, backend, limits));
  KBENCH_RETURN_IF_ERROR(CheckDType(*op, request.dtype(), variants, backend));
  KBENCH_RETURN_IF_ERROR(op->CheckVariants(request, variants, backend, limits));
  KBENCH_ASSIGN_OR_RETURN(TimingPlan plan, ValidateTiming(request.timing(), limits, defaults));
  KBENCH_RETURN_IF_ERROR(CheckLabel(request.label(), limits));
  KBENCH_RETURN_IF_ERROR(AdmitKernels(request, *op, limits, backend));
  if (request.fault() != v1::FAULT_NONE && !v1::Fault_IsValid(request.fault()))
    return absl::InvalidArgumentError(
        absl::StrCat("fault: unknown value ", int(request.fault())));

  AdmittedRun run;
  run.problem.op = op;
  run.problem.request = request;
  run.problem.dtype = ops::FromProto(request.dtype());
  for (const ops::VariantSpec* v : variants) run.problem.variants.push_back(v->id);
  run.plan = plan;
  return run;
}

v1::TimingOptions ToProto(const TimingPlan& plan) {
  v1::TimingOptions t;
  t.set_warmup_runs(plan.warmup_runs);
  t.set_min_samples(plan.min_samples);
  t.set_min_time_ms(plan.min_time_ms);
  t.set_target_rse(plan.target_rse);
  t.set_time_budget_ms(plan.time_budget_ms);
  t.set_max_samples(plan.max_samples);
  t.set_mode(plan.mode);
  t.set_min_effect(plan.min_effect);
  t.set_discard_throttled(plan.discard_throttled);
  return t;
}

v1::RunRequest Resolved(const AdmittedRun& run) {
  v1::RunRequest request = run.problem.request;
  request.set_dtype(ops::ToProto(run.problem.dtype));
  request.clear_variants();
  for (size_t i = 0; i < run.problem.variants.size(); ++i)
    request.add_variants(run.problem.VariantName(i));
  *request.mutable_timing() = ToProto(run.plan);
  return request;
}

v1::RunRequest ToRunRequest(const v1::VectorAddRequest& r) {
  v1::RunRequest request;
  request.mutable_vector_add()->set_n(r.n());
  request.set_dtype(r.dtype());
  *request.mutable_variants() = r.variants();
  *request.mutable_timing() = r.timing();
  request.set_seed(r.seed());
  request.set_label(r.label());
  *request.mutable_kernels() = r.kernels();
  return request;
}

v1::RunRequest ToRunRequest(const v1::AttentionRequest& r) {
  v1::RunRequest request;
  v1::AttentionProblem* p = request.mutable_attention();
  p->set_batch(r.batch());
  p->set_heads(r.heads());
  p->set_seq_len(r.seq_len());
  p->set_head_dim(r.head_dim());
  p->set_causal(r.causal());
  request.set_dtype(r.dtype());
  *request.mutable_variants() = r.variants();
  *request.mutable_timing() = r.timing();
  request.set_seed(r.seed());
  request.set_label(r.label());
  *request.mutable_kernels() = r.kernels();
  return request;
}

}  // namespace kbench::server
