#include "server/validation.h"

#include <algorithm>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace kbench::server {
namespace {

absl::Status OutOfRange(const std::string& field, uint64_t low, uint64_t high,
                        uint64_t got) {
  return absl::InvalidArgumentError(absl::StrCat(
      field, " must be between ", low, " and ", high, ", got ", got));
}

absl::Status CheckRange(const std::string& field, uint64_t value, uint64_t low,
                        uint64_t high) {
  if (value < low || value > high) return OutOfRange(field, low, high, value);
  return absl::OkStatus();
}

const v1::OpInfo* FindOp(const std::vector<v1::OpInfo>& ops, const std::string& op) {
  for (const auto& info : ops)
    if (info.op() == op) return &info;
  return nullptr;
}

std::string DTypeText(v1::DType dtype) {
  switch (dtype) {
    case v1::DTYPE_FP32: return "fp32";
    case v1::DTYPE_FP16: return "fp16";
    case v1::DTYPE_BF16: return "bf16";
    default: return absl::StrCat("dtype #", int(dtype));
  }
}

// Checks the op exists on this backend, the dtype and the variants; returns
// the dtype and fills `variants` (all of the op's when none were named).
absl::StatusOr<kernels::DType> CheckOp(
    const std::vector<v1::OpInfo>& ops, const std::string& op, v1::DType dtype,
    const google::protobuf::RepeatedPtrField<std::string>& requested,
    const v1::Limits& limits, std::vector<std::string>& variants) {
  const v1::OpInfo* info = FindOp(ops, op);
  if (info == nullptr)
    return absl::InvalidArgumentError(absl::StrCat(op, " is not offered by this server"));
  if (dtype == v1::DTYPE_UNSPECIFIED) dtype = v1::DTYPE_FP32;
  if (std::find(info->dtypes().begin(), info->dtypes().end(), dtype) ==
      info->dtypes().end()) {
    std::vector<std::string> names;
    for (int d : info->dtypes()) names.push_back(DTypeText(v1::DType(d)));
    return absl::InvalidArgumentError(absl::StrCat(
        "dtype ", DTypeText(dtype), " is not supported for ", op,
        " on this server; supported: ", absl::StrJoin(names, ", ")));
  }
  if (uint64_t(requested.size()) > limits.max_variants())
    return absl::InvalidArgumentError(absl::StrCat(
        "variants: at most ", limits.max_variants(), " per run, got ", requested.size()));
  variants.assign(requested.begin(), requested.end());
  if (variants.empty()) variants.assign(info->variants().begin(), info->variants().end());
  for (size_t i = 0; i < variants.size(); ++i) {
    const std::string& v = variants[i];
    if (std::find(info->variants().begin(), info->variants().end(), v) ==
        info->variants().end())
      return absl::InvalidArgumentError(absl::StrCat(
          "variants: unknown ", op, " variant '", v,
          "'; supported: ", absl::StrJoin(info->variants(), ", ")));
    if (std::find(variants.begin(), variants.begin() + i, v) != variants.begin() + i)
      return absl::InvalidArgumentError(
          absl::StrCat("variants: '", v, "' is named twice"));
  }
  return dtype == v1::DTYPE_FP16   ? kernels::DType::kFp16
         : dtype == v1::DTYPE_BF16 ? kernels::DType::kBf16
                                   : kernels::DType::kFp32;
}

absl::Status CheckLabel(const std::string& label, const v1::Limits& limits) {
  if (label.size() > limits.max_label_length())
    return absl::InvalidArgumentError(absl::StrCat(
        "label must be at most ", limits.max_label_length(), " bytes, got ",
        label.size()));
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<TimingPlan> ValidateTiming(const v1::TimingOptions& timing,
                                          const v1::Limits& limits,
                                          const TimingPlan& defaults) {
  TimingPlan plan = defaults;
  if (timing.warmup_runs() > 0) plan.warmup_runs = timing.warmup_runs();
  if (timing.min_samples() > 0) plan.min_samples = timing.min_samples();
  if (timing.max_samples() > 0) plan.max_samples = timing.max_samples();
  if (timing.min_time_ms() != 0) plan.min_time_ms = timing.min_time_ms();
  if (timing.time_budget_ms() != 0) plan.time_budget_ms = timing.time_budget_ms();
  if (timing.target_rse() != 0) plan.target_rse = timing.target_rse();
  if (timing.mode() != v1::TIMING_MODE_UNSPECIFIED) plan.mode = timing.mode();
  // Defaults yield to the bounds the request set: a request for at most 3
  // samples, or a 50 ms budget, is not refused for the default minimums.
  if (timing.min_samples() == 0) plan.min_samples = std::min(plan.min_samples, plan.max_samples);
  if (timing.min_time_ms() == 0) plan.min_time_ms = std::min(plan.min_time_ms, plan.time_budget_ms);

  if (auto s = CheckRange("timing.warmup_runs", plan.warmup_runs, 0,
                          limits.max_warmup_runs());
      !s.ok())
    return s;
  if (auto s = CheckRange("timing.max_samples", plan.max_samples, 1, limits.max_samples());
      !s.ok())
    return s;
  if (auto s = CheckRange("timing.min_samples", plan.min_samples, 1, plan.max_samples);
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
  if (!v1::TimingMode_IsValid(plan.mode))
    return absl::InvalidArgumentError(
        absl::StrCat("timing.mode: unknown mode ", int(plan.mode)));
  return plan;
}

absl::StatusOr<AdmittedRun<VectorAddProblem>> ValidateVectorAdd(
    const v1::VectorAddRequest& request, const v1::Limits& limits,
    const std::vector<v1::OpInfo>& ops, const TimingPlan& defaults) {
  AdmittedRun<VectorAddProblem> run;
  if (auto s = CheckRange("n", request.n(), 1, limits.max_vector_n()); !s.ok()) return s;
  auto dtype = CheckOp(ops, "vector_add", request.dtype(), request.variants(),
                       limits, run.problem.variants);
  if (!dtype.ok()) return dtype.status();
  auto plan = ValidateTiming(request.timing(), limits, defaults);
  if (!plan.ok()) return plan.status();
  if (auto s = CheckLabel(request.label(), limits); !s.ok()) return s;
  run.problem.n = int64_t(request.n());
  run.problem.dtype = *dtype;
  run.problem.seed = request.seed();
  run.plan = *plan;
  run.label = request.label();
  return run;
}

absl::StatusOr<AdmittedRun<AttentionProblem>> ValidateAttention(
    const v1::AttentionRequest& request, const v1::Limits& limits,
    const std::vector<v1::OpInfo>& ops, const TimingPlan& defaults) {
  AdmittedRun<AttentionProblem> run;
  for (const auto& [field, value, high] :
       {std::tuple{"batch", request.batch(), limits.max_batch()},
        std::tuple{"heads", request.heads(), limits.max_heads()},
        std::tuple{"seq_len", request.seq_len(), limits.max_seq_len()},
        std::tuple{"head_dim", request.head_dim(), limits.max_head_dim()}}) {
    if (auto s = CheckRange(field, value, 1, high); !s.ok()) return s;
  }
  kernels::AttentionShape& shape = run.problem.shape;
  shape.batch = request.batch();
  shape.heads = request.heads();
  shape.seq_len = request.seq_len();
  shape.head_dim = request.head_dim();
  shape.causal = request.causal();
  auto dtype = CheckOp(ops, "attention", request.dtype(), request.variants(),
                       limits, run.problem.variants);
  if (!dtype.ok()) return dtype.status();
  const v1::OpInfo* info = FindOp(ops, "attention");
  if (!info->head_dims().empty() &&
      std::find(info->head_dims().begin(), info->head_dims().end(),
                request.head_dim()) == info->head_dims().end())
    return absl::InvalidArgumentError(absl::StrCat(
        "head_dim ", request.head_dim(), " is not supported on this server; supported: ",
        absl::StrJoin(info->head_dims(), ", ")));
  if (uint64_t(shape.TensorElements()) > limits.max_attention_elements())
    return absl::InvalidArgumentError(absl::StrCat(
        "batch * heads * seq_len * head_dim must be at most ",
        limits.max_attention_elements(), ", got ", shape.TensorElements()));
  const bool naive = std::find(run.problem.variants.begin(), run.problem.variants.end(),
                               "naive") != run.problem.variants.end();
  if (naive && uint64_t(shape.ScoreElements()) > limits.max_score_elements())
    return absl::InvalidArgumentError(absl::StrCat(
        "the naive variant stores batch * heads * seq_len^2 = ", shape.ScoreElements(),
        " scores; the limit (max_score_elements) is ", limits.max_score_elements()));
  const double gflop = 4.0 * shape.BatchHeads() * double(shape.seq_len) *
                       double(shape.seq_len) * double(shape.head_dim) / 1e9;
  if (gflop > limits.max_attention_gflop())
    return absl::InvalidArgumentError(absl::StrCat(
        "one attention sample would take 4 * batch * heads * seq_len^2 * head_dim = ",
        gflop, " GFLOP; the limit (max_attention_gflop) is ",
        limits.max_attention_gflop()));
  auto plan = ValidateTiming(request.timing(), limits, defaults);
  if (!plan.ok()) return plan.status();
  if (auto s = CheckLabel(request.label(), limits); !s.ok()) return s;
  run.problem.dtype = *dtype;
  run.problem.seed = request.seed();
  run.plan = *plan;
  run.label = request.label();
  return run;
}

}  // namespace kbench::server
