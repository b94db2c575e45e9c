#include "server/worker/runner.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <random>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "kernels/common/status_macros.h"
#include "server/worker/speedup.h"
#include "server/worker/statistics.h"
#include "server/worker/throughput.h"

namespace kbench::server::worker {
namespace {

using Clock = std::chrono::steady_clock;

double MillisecondsSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// Samples go out in batches at most this often, or once this many wait:
// a stream's event count follows the run's duration, not its sample count.
constexpr double kBatchIntervalMs = 250;
constexpr size_t kMaxBatchSamples = 8192;

// Whether the run may go on: not cancelled, and within its wall-clock bound
// (TimingPlan.deadline_ms, 0 for none).
absl::Status CheckGoOn(const RunSink& sink, const TimingPlan& plan, Clock::time_point run_start) {
  if (sink.Cancelled()) return absl::CancelledError("the run was cancelled");
  if (plan.deadline_ms > 0 && MillisecondsSince(run_start) > plan.deadline_ms)
    return absl::DeadlineExceededError(absl::StrFormat(
        "the run passed its wall-clock bound of %.0f ms (2 x timing.time_budget_ms + "
        "Limits.max_run_overhead_seconds) and was stopped",
        plan.deadline_ms));
  return absl::OkStatus();
}

// The clocks of one variant's samples, each sample's reading kept so that
// throttled samples can be left out.
class VariantClocks {
 public:
  void Add(const ClockReading& r) {
    throttled_.push_back(r.available && r.throttled);
    if (!r.available) return;
    clocks_.set_available(true);
    if (!seen_ || r.sm_clock_mhz_min < clocks_.sm_clock_mhz_min())
      clocks_.set_sm_clock_mhz_min(r.sm_clock_mhz_min);
    if (!seen_ || r.sm_clock_mhz_max > clocks_.sm_clock_mhz_max())
      clocks_.set_sm_clock_mhz_max(r.sm_clock_mhz_max);
    if (r.throttled) {
      clocks_.set_throttled(true);
      clocks_.set_throttled_samples(clocks_.throttled_samples() + 1);
    }
    seen_ = true;
  }
  // Whether sample i ran throttled.
  bool throttled(size_t i) const { return throttled_[i]; }
  v1::Clocks& clocks() { return clocks_; }

 private:
  bool seen_ = false;
  std::vector<bool> throttled_;
  v1::Clocks clocks_;
};

// Folds a later check of the same variant's output into the first: the
// verification passes only if every check passed, and reports the worst;
// the first failure is the one described.
void Merge(const v1::Verification& later, v1::Verification& into) {
  if (!later.passed() && into.passed()) {
    into.set_failure(later.failure());
    into.set_worst_element(later.worst_element());
    into.set_worst_output(later.worst_output());
    into.set_worst_reference(later.worst_reference());
  }
  into.set_passed(into.passed() && later.passed());
  into.set_checked_runs(into.checked_runs() + later.checked_runs());
  into.set_max_abs_error(std::max(into.max_abs_error(), later.max_abs_error()));
  into.set_rel_l2_error(std::max(into.rel_l2_error(), later.rel_l2_error()));
  into.set_non_finite(std::max(into.non_finite(), later.non_finite()));
  into.set_elements_over_tolerance(
      std::max(into.elements_over_tolerance(), later.elements_over_tolerance()));
  into.set_reference_rel_l2_error(
      std::max(into.reference_rel_l2_error(), later.reference_rel_l2_error()));
}

// Steps 2-5 of runner.h, once the workload exists.
class Measurement {
 public:
  Measurement(Device& device, Workload& workload, const AdmittedRun& run, const std::string& run_id,
              RunSink& sink, Clock::time_point run_start)
      : run_start_(run_start),
        device_(device),
        workload_(workload),
        problem_(run.problem),
        plan_(run.plan),
        run_id_(run_id),
        sink_(sink),
        count_(int(problem_.VariantCount())),
        verifier_(problem_.op->MakeVerifier(problem_.request, problem_.dtype)),
        redraws_(!problem_.kernels.empty()),
        printed_(count_),
        checks_(count_),
        samples_(count_),
        clocks_(count_),
        discard_(count_),
        unsent_from_(count_, 0) {}

  absl::Status Run() {
    // 2. An untimed run of each variant on a poisoned output, checked.
    for (int v = 0; v < count_; ++v) {
      KBENCH_RETURN_IF_ERROR(GoOn());
      sink_.StepStarted(RunStep::kVerify, problem_.VariantName(size_t(v)));
      KBENCH_RETURN_IF_ERROR(workload_.PoisonOutput());
      KBENCH_RETURN_IF_ERROR(workload_.Run(v));
      TakePrinted(v);
      KBENCH_ASSIGN_OR_RETURN(checks_[v], Check());
    }
    // 3. Warm-up, in rounds of every variant, until warmup_runs rounds or
    // until they have taken time_budget_ms: their share of the run's bound.
    const auto warmup_start = Clock::now();
    for (uint32_t w = 0; w < plan_.warmup_runs; ++w) {
      if (w > 0 && MillisecondsSince(warmup_start) >= plan_.time_budget_ms) break;
      for (int v = 0; v < count_; ++v) {
        KBENCH_RETURN_IF_ERROR(GoOn());
        sink_.StepStarted(RunStep::kWarmup, problem_.VariantName(size_t(v)));
        KBENCH_RETURN_IF_ERROR(workload_.Run(v));
        TakePrinted(v);
      }
    }
    // 4. Sampling. The first round's and the last round's outputs are
    // checked too: what was timed is what was verified.
    KBENCH_ASSIGN_OR_RETURN(v1::StopReason stop, Sample());
    SendBatch();
    // 5. Results.
    Report(stop);
    return absl::OkStatus();
  }

 private:
  absl::Status GoOn() const { return CheckGoOn(sink_, plan_, run_start_); }

  // Emits the samples taken since the last batch, if any.
  void SendBatch() {
    v1::RunEvent event;
    for (int v = 0; v < count_; ++v) {
      if (unsent_from_[v] == samples_[v].size()) continue;
      v1::VariantSamples* batch = event.mutable_samples()->add_variants();
      batch->set_variant(problem_.VariantName(size_t(v)));
      batch->set_total(uint32_t(samples_[v].size()));
      batch->mutable_ms()->Add(samples_[v].begin() + long(unsent_from_[v]), samples_[v].end());
      unsent_from_[v] = samples_[v].size();
    }
    unsent_ = 0;
    last_batch_ = Clock::now();
    if (event.has_samples()) sink_.Emit(std::move(event));
  }

  // One timed sample of variant v; `checked` verifies what the sample
  // wrote. The output is poisoned first when checked, and before every
  // sample of a run with a learner's kernel, so that no kernel can tell a
  // checked sample from another by its output.
  absl::Status TakeSample(int v, bool checked) {
    KBENCH_RETURN_IF_ERROR(GoOn());
    sink_.StepStarted(RunStep::kSample, problem_.VariantName(size_t(v)));
    if (checked || redraws_) KBENCH_RETURN_IF_ERROR(workload_.PoisonOutput());
    device_.StartClockWatch();
    const absl::StatusOr<double> ms = workload_.TimeSample(v, plan_.mode);
    clocks_[v].Add(device_.StopClockWatch());
    if (!ms.ok()) return ms.status();
    TakePrinted(v);
    if (checked) {
      KBENCH_ASSIGN_OR_RETURN(const v1::Verification check, Check());
      Merge(check, checks_[v]);
    }
    samples_[v].push_back(*ms);
    if (++unsent_ >= kMaxBatchSamples || MillisecondsSince(last_batch_) >= kBatchIntervalMs)
      SendBatch();
    return absl::OkStatus();
  }

  // One check of the workload's output with the verifier of its inputs.
  absl::StatusOr<v1::Verification> Check() {
    KBENCH_ASSIGN_OR_RETURN(v1::Verification check, verifier_->Check(workload_));
    check.set_checked_runs(1);
    return check;
  }

  // Whether the next round is checked: the first and the last always; with
  // a learner's kernel, a random share of the others too.
  bool CheckedRound(bool first, bool last) {
    if (first || last) return true;
    if (!redraws_ || random_checks_ >= kMaxRandomCheckedRounds) return false;
    if (std::bernoulli_distribution(kCheckedRoundShare)(rng_)) {
      ++random_checks_;
      return true;
    }
    return false;
  }

  // Draws the inputs anew from a fresh seed; for a checked round, the
  // verifier of them too.
  absl::Status Redraw(bool checked) {
    v1::RunRequest request = problem_.request;
    request.set_seed(rng_());
    KBENCH_RETURN_IF_ERROR(workload_.Redraw(request.seed()));
    if (checked) verifier_ = problem_.op->MakeVerifier(request, problem_.dtype);
    return absl::OkStatus();
  }

  // Keeps what variant v printed, up to kMaxKernelOutputBytes, and counts it all.
  void TakePrinted(int v) {
    const size_t room = kMaxKernelOutputBytes - printed_[v].text.size();
    Workload::Printed printed = workload_.TakePrinted(v, room);
    printed_[v].text += printed.text;
    printed_[v].bytes += printed.bytes;
  }

  // Rounds of one sample per variant, in alternating order (A B, B A, ...)
  // until the stopping rule of runner.h ends them. The round after the
  // decision is the last one, checked; CheckedRound picks the others. A
  // run with a learner's kernel redraws its inputs before every round, so
  // that every timed launch meets inputs it has not seen.
  absl::StatusOr<v1::StopReason> Sample() {
    v1::StopReason stop = v1::STOP_REASON_UNSPECIFIED;
    const auto sampling_start = Clock::now();
    // A speedup needs kMinSamplesFor95 rounds for a verdict; max_samples
    // and the budget still bound them.
    const size_t min_rounds =
        count_ > 1 ? std::max<size_t>(plan_.min_samples, kMinSamplesFor95) : plan_.min_samples;
    for (size_t round = 0;; ++round) {
      const bool last = stop != v1::STOP_REASON_UNSPECIFIED;
      const bool checked = CheckedRound(round == 0, last);
      if (redraws_) KBENCH_RETURN_IF_ERROR(Redraw(checked));
      for (int i = 0; i < count_; ++i) {
        const int v = round % 2 == 0 ? i : count_ - 1 - i;
        KBENCH_RETURN_IF_ERROR(TakeSample(v, checked));
      }
      if (last) return stop;
      const size_t rounds = round + 1;
      const double elapsed = MillisecondsSince(sampling_start);
      // One round remains after a decision, so the bounds allow for it.
      const bool converged = rounds + 1 >= min_rounds && elapsed >= plan_.min_time_ms &&
                             std::all_of(samples_.begin(), samples_.end(), [&](const auto& s) {
                               return RelativeStandardError(s) < plan_.target_rse;
                             });
      const double round_ms = elapsed / double(rounds);
      if (converged) {
        stop = v1::STOP_REASON_CONVERGED;
      } else if (rounds + 1 >= plan_.max_samples) {
        stop = v1::STOP_REASON_MAX_SAMPLES;
      } else if (elapsed + round_ms >= plan_.time_budget_ms) {
        stop = v1::STOP_REASON_TIME_BUDGET;
      }
      if (stop != v1::STOP_REASON_UNSPECIFIED && rounds >= plan_.max_samples) return stop;
    }
  }

  void Report(v1::StopReason stop) {
    const v1::DeviceInfo info = device_.Info();
    const proto::ops::Work work = problem_.op->WorkOf(problem_.request, problem_.dtype);
    bool all_verified = true;
    std::vector<double> medians(size_t(count_), 0.0);
    for (int v = 0; v < count_; ++v) {
      // Throttled samples are left out when asked, unless all were.
      discard_[v] =
          plan_.discard_throttled && clocks_[v].clocks().throttled_samples() < samples_[v].size();
      std::vector<double> kept;
      for (size_t i = 0; i < samples_[v].size(); ++i)
        if (Kept(v, i)) kept.push_back(samples_[v][i]);
      if (discard_[v])
        clocks_[v].clocks().set_discarded_samples(uint32_t(samples_[v].size() - kept.size()));
      v1::RunEvent event;
      v1::VariantResult* result = event.mutable_variant_result();
      result->set_variant(problem_.VariantName(size_t(v)));
      *result->mutable_stats() = Summarize(kept);
      result->mutable_stats()->set_stop_reason(stop);
      medians[size_t(v)] = result->stats().median_ms();
      *result->mutable_throughput() =
          ThroughputOf(work, result->stats().median_ms(), info, problem_.dtype, plan_.mode);
      *result->mutable_verification() = checks_[v];
      *result->mutable_clocks() = clocks_[v].clocks();
      result->set_config(workload_.VariantConfig(v));
      if (size_t(v) >= problem_.variants.size())
        *result->mutable_compile() = problem_.kernels[size_t(v) - problem_.variants.size()].facts;
      result->set_kernel_output(printed_[v].text);
      result->set_kernel_output_bytes(printed_[v].bytes);
      all_verified = all_verified && checks_[v].passed();
      sink_.Emit(std::move(event));
    }

    v1::RunEvent event;
    v1::Summary* summary = event.mutable_summary();
    summary->set_run_id(run_id_);
    summary->set_all_verified(all_verified);
    // Variant v against variant b. The interval resamples rounds: both
    // samples of a round ran back to back. Rounds with a discarded sample
    // are left out, unless that leaves none.
    auto add_speedup = [&](int b, int v) {
      std::vector<double> base, mine;
      for (size_t i = 0; i < samples_[v].size() && i < samples_[b].size(); ++i)
        if (Kept(b, i) && Kept(v, i)) {
          base.push_back(samples_[b][i]);
          mine.push_back(samples_[v][i]);
        }
      if (base.empty()) {
        base = samples_[b];
        mine = samples_[v];
      }
      const SpeedupEstimate estimate =
          EstimateSpeedup(medians[size_t(b)], medians[size_t(v)], base, mine);
      v1::Speedup* speedup = summary->add_speedups();
      speedup->set_variant(problem_.VariantName(size_t(v)));
      speedup->set_baseline(problem_.VariantName(size_t(b)));
      speedup->set_speedup(estimate.speedup);
      speedup->set_ci_low(estimate.low);
      speedup->set_ci_high(estimate.high);
      speedup->set_ci_confidence(estimate.confidence);
      speedup->set_min_effect(plan_.min_effect);
      speedup->set_rounds(uint32_t(estimate.rounds));
      speedup->set_verdict_min_rounds(uint32_t(kMinSamplesFor95));
      speedup->set_verdict(VerdictOf(estimate, plan_.min_effect));
    };
    for (int v = 1; v < count_; ++v) add_speedup(0, v);
    // A learner's kernel against every other built-in too: the bar each
    // one sets.
    const int builtins = int(problem_.variants.size());
    for (int v = builtins; v < count_; ++v)
      for (int b = 1; b < builtins; ++b) add_speedup(b, v);
    summary->set_wall_ms(MillisecondsSince(run_start_));
    sink_.Emit(std::move(event));
  }

  // Whether sample i of variant v enters the statistics and speedups.
  bool Kept(int v, size_t i) const { return !discard_[v] || !clocks_[v].throttled(i); }

  const Clock::time_point run_start_;
  Device& device_;
  Workload& workload_;
  const Problem& problem_;
  const TimingPlan& plan_;
  const std::string& run_id_;
  RunSink& sink_;
  const int count_;
  // Made for the inputs of the latest draw (Redraw).
  std::unique_ptr<proto::ops::Verifier> verifier_;
  // A learner's kernel runs: every round redraws the inputs and poisons the
  // output, and a random share of rounds is checked, all from a generator
  // no kernel can predict.
  const bool redraws_;
  std::mt19937_64 rng_{std::random_device{}()};
  int random_checks_ = 0;
  std::vector<Workload::Printed> printed_;
  std::vector<v1::Verification> checks_;
  std::vector<std::vector<double>> samples_;
  std::vector<VariantClocks> clocks_;
  std::vector<bool> discard_;
  // Per variant, the first sample not yet in a batch; samples taken since
  // the last batch, and when it went.
  std::vector<size_t> unsent_from_;
  size_t unsent_ = 0;
  Clock::time_point last_batch_ = Clock::now();
};

}  // namespace

absl::Status RunJob(Device& device, const AdmittedRun& run, const std::string& run_id,
                    RunSink& sink) {
  const auto run_start = Clock::now();
  KBENCH_RETURN_IF_ERROR(CheckGoOn(sink, run.plan, run_start));
  sink.StepStarted(RunStep::kPrepare, "");
  KBENCH_ASSIGN_OR_RETURN(std::unique_ptr<Workload> workload, device.Prepare(run.problem, [&] {
    return CheckGoOn(sink, run.plan, run_start);
  }));
  // Started names the timing method, which only the workload knows, so it
  // is emitted once the problem is prepared.
  const v1::DeviceInfo info = device.Info();
  v1::RunEvent event;
  v1::Started* started = event.mutable_started();
  started->set_run_id(run_id);
  started->set_backend(info.backend());
  started->set_device(info.name());
  started->set_device_index(info.index());
  started->set_seed(run.problem.request.seed());
  for (size_t v = 0; v < run.problem.VariantCount(); ++v)
    started->add_variants(run.problem.VariantName(v));
  started->set_timing_method(workload->TimingMethod(run.plan.mode));
  started->set_deadline_ms(run.plan.deadline_ms);
  sink.Emit(std::move(event));
  return Measurement(device, *workload, run, run_id, sink, run_start).Run();
}

}  // namespace kbench::server::worker
