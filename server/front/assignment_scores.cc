#include "server/front/assignment_scores.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/util/message_differencer.h"
#include "proto/ops/dtypes.h"
#include "proto/ops/registry.h"

namespace kbench::server {
namespace {

using google::protobuf::util::MessageDifferencer;

// Whether a and b pose the same problem (op and sizes) in the same dtype.
bool SameProblem(const v1::RunRequest& a, const v1::RunRequest& b) {
  const auto* oneof = v1::RunRequest::descriptor()->FindOneofByName("problem");
  const auto* reflection = v1::RunRequest::GetReflection();
  const auto* field_a = reflection->GetOneofFieldDescriptor(a, oneof);
  const auto* field_b = reflection->GetOneofFieldDescriptor(b, oneof);
  return field_a != nullptr && field_a == field_b &&
         MessageDifferencer::Equals(reflection->GetMessage(a, field_a),
                                    reflection->GetMessage(b, field_b)) &&
         proto::ops::FromProto(a.dtype()) == proto::ops::FromProto(b.dtype());
}

bool SameKernelButSource(v1::KernelSource a, v1::KernelSource b) {
  a.clear_source();
  b.clear_source();
  return MessageDifferencer::Equals(a, b);
}

std::string ProblemName(int index, const v1::RunRequest& problem) {
  return absl::StrCat("problem ", index + 1, " (", proto::ops::DescribeProblemOf(problem), ")");
}

const v1::VariantResult* ResultOf(const v1::RunRecord& run, const std::string& variant) {
  for (const v1::VariantResult& result : run.results())
    if (result.variant() == variant) return &result;
  return nullptr;
}

// Why a run that ended does not count; empty when it does.
std::string WhyNotCounted(const v1::RunRecord& run) {
  if (run.status() == v1::RUN_STATUS_OK && run.summary().all_verified()) return "";
  if (run.status() == v1::RUN_STATUS_FAILED_VERIFICATION) {
    for (const v1::VariantResult& result : run.results())
      if (!result.verification().passed())
        return absl::StrCat("failed verification (", result.variant(), ": ",
                            result.verification().failure().empty()
                                ? absl::StrCat(result.verification().elements_over_tolerance(),
                                               " elements over tolerance")
                                : result.verification().failure(),
                            ")");
    return "failed verification";
  }
  const std::string status = absl::AsciiStrToLower(
      v1::RunStatus_Name(run.status()).substr(std::string("RUN_STATUS_").size()));
  return run.error().empty() ? status : absl::StrCat(status, ": ", run.error());
}

double GeometricMean(const std::vector<double>& values) {
  double log_sum = 0;
  for (double value : values) log_sum += std::log(value);
  return std::exp(log_sum / double(values.size()));
}

bool Overlap(const v1::SubmissionReport& a, const v1::SubmissionReport& b) {
  return a.score_ci_low_ms() <= b.score_ci_high_ms() && b.score_ci_low_ms() <= a.score_ci_high_ms();
}

}  // namespace

bool RunOfProblem(const v1::Assignment& assignment, int index, const v1::Submission& submission,
                  const v1::RunRecord& run) {
  const v1::RunRequest& request = run.request();
  const std::string& runner = submission.runner().empty() ? submission.user() : submission.runner();
  if (run.user() != runner || request.submission_id() != submission.submission_id() ||
      !SameProblem(request, assignment.problems(index)) || request.kernels_size() != 1 ||
      !SameKernelButSource(request.kernels(0), submission.kernel()) ||
      request.variants_size() != assignment.baselines_size())
    return false;
  for (int i = 0; i < request.variants_size(); ++i)
    if (request.variants(i) != assignment.baselines(i)) return false;
  return true;
}

v1::SubmissionReport ReportOf(const v1::Assignment& assignment, const v1::Submission& submission,
                              const std::vector<const v1::RunRecord*>& problem_runs) {
  v1::SubmissionReport report;
  *report.mutable_submission() = submission;
  report.mutable_submission()->clear_runs();
  const std::string& kernel = submission.kernel().name();
  std::vector<double> medians, lows, highs;
  std::map<std::string, std::vector<double>> speedups;  // by baseline
  std::set<std::string> devices;
  for (int i = 0; i < assignment.problems_size(); ++i) {
    const v1::RunRequest& problem = assignment.problems(i);
    v1::ProblemResult& result = *report.add_problems();
    result.set_problem(proto::ops::DescribeProblemOf(problem));
    result.set_dtype(kernels::DTypeName(proto::ops::FromProto(problem.dtype())));
    const v1::RunRecord* run = i < int(problem_runs.size()) ? problem_runs[size_t(i)] : nullptr;
    std::string why;
    if (run == nullptr) {
      why = "not run";
    } else {
      result.set_run_id(run->run_id());
      result.set_status(run->status());
      result.set_device(run->device().name());
      if (!run->device().name().empty()) devices.insert(run->device().name());
      why = WhyNotCounted(*run);
      result.set_error(why);
      if (const v1::VariantResult* mine = ResultOf(*run, kernel)) *result.mutable_result() = *mine;
      for (const v1::Speedup& speedup : run->summary().speedups())
        if (speedup.variant() == kernel) *result.add_speedups() = speedup;
      if (why.empty()) {
        const v1::Statistics& stats = result.result().stats();
        if (stats.median_ms() <= 0) {
          why = "no time for the kernel";
        } else {
          medians.push_back(stats.median_ms());
          lows.push_back(stats.median_ci_low_ms() > 0 ? stats.median_ci_low_ms()
                                                      : stats.median_ms());
          highs.push_back(stats.median_ci_high_ms() > 0 ? stats.median_ci_high_ms()
                                                        : stats.median_ms());
          for (const std::string& baseline : assignment.baselines())
            if (const v1::VariantResult* base = ResultOf(*run, baseline);
                base != nullptr && base->stats().median_ms() > 0)
              speedups[baseline].push_back(base->stats().median_ms() / stats.median_ms());
        }
      }
    }
    if (!why.empty() && report.why_not().empty())
      report.set_why_not(absl::StrCat(ProblemName(i, problem), ": ", why));
  }
  for (const std::string& device : devices) report.add_devices(device);
  if (!report.why_not().empty() || medians.empty()) return report;
  report.set_counts(true);
  report.set_score_ms(GeometricMean(medians));
  report.set_score_ci_low_ms(GeometricMean(lows));
  report.set_score_ci_high_ms(GeometricMean(highs));
  for (const std::string& baseline : assignment.baselines()) {
    const std::vector<double>& ratios = speedups[baseline];
    if (ratios.size() != medians.size()) continue;
    v1::ScoreSpeedup& speedup = *report.add_speedups();
    speedup.set_baseline(baseline);
    speedup.set_speedup(GeometricMean(ratios));
  }
  return report;
}

v1::Leaderboard RankLearners(const v1::Assignment& assignment,
                             const std::vector<v1::SubmissionReport>& reports) {
  struct Learner {
    const v1::SubmissionReport* best = nullptr;
    uint32_t attempts = 0;
    int64_t last = 0;
  };
  std::map<std::string, Learner> learners;
  for (const v1::SubmissionReport& report : reports) {
    const v1::Submission& submission = report.submission();
    if (!submission.rerun_of().empty()) continue;  // an instructor's re-run
    Learner& learner = learners[submission.user()];
    ++learner.attempts;
    learner.last = std::max(learner.last, submission.submitted_unix_ms());
    if (!report.counts()) continue;
    const v1::SubmissionReport* best = learner.best;
    if (best == nullptr || report.score_ms() < best->score_ms() ||
        (report.score_ms() == best->score_ms() &&
         submission.submitted_unix_ms() < best->submission().submitted_unix_ms()))
      learner.best = &report;
  }
  v1::Leaderboard board;
  *board.mutable_assignment() = assignment;
  for (const auto& [user, learner] : learners) {
    if (learner.best == nullptr) {
      board.set_without_counting(board.without_counting() + 1);
      continue;
    }
    v1::LeaderboardEntry& entry = *board.add_entries();
    entry.set_user(user);
    *entry.mutable_best() = *learner.best;
    entry.set_attempts(learner.attempts);
    entry.set_last_attempt_unix_ms(learner.last);
  }
  auto& entries = *board.mutable_entries();
  std::stable_sort(entries.begin(), entries.end(),
                   [](const v1::LeaderboardEntry& a, const v1::LeaderboardEntry& b) {
                     return a.best().score_ms() < b.best().score_ms();
                   });
  int leader = 0;  // the first entry of the current rank
  for (int i = 0; i < entries.size(); ++i) {
    if (i > 0 && Overlap(entries[leader].best(), entries[i].best())) {
      entries[i].set_rank(entries[leader].rank());
      entries[i].set_tied(true);
      entries[leader].set_tied(true);
      continue;
    }
    leader = i;
    entries[i].set_rank(uint32_t(i + 1));
  }
  return board;
}

}  // namespace kbench::server
