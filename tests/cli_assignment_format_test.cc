// How the CLI prints a re-run against the leaderboard it started from
// (client/assignment_command.h FormatRerun): ranks before and now, the
// GPUs, the ratio of the scores, and why a re-run does not count.
#include "client/assignment_command.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kbench::client {
namespace {

using ::testing::HasSubstr;

v1::SubmissionReport Counting(const std::string& id, const std::string& user, double ms,
                              const std::string& device) {
  v1::SubmissionReport report;
  report.mutable_submission()->set_submission_id(id);
  report.mutable_submission()->set_user(user);
  report.set_counts(true);
  report.set_score_ms(ms);
  report.set_score_ci_low_ms(ms);
  report.set_score_ci_high_ms(ms);
  report.add_devices(device);
  return report;
}

TEST(FormatRerun, ComparesEachLearnersScoreAndRankBeforeAndNow) {
  v1::RerunPlan plan;
  plan.mutable_before()->mutable_assignment()->set_name("lab1");
  for (auto [rank, user, ms] : {std::tuple{1u, "ada", 1.0}, {2u, "bob", 2.0}, {3u, "cy", 3.0}}) {
    v1::LeaderboardEntry& entry = *plan.mutable_before()->add_entries();
    entry.set_rank(rank);
    entry.set_user(user);
    *entry.mutable_best() = Counting(std::string("sub-old-") + user, user, ms, "NVIDIA H100");
  }
  std::vector<v1::SubmissionReport> reruns;
  for (auto [user, ms] : {std::pair{"ada", 1.5}, {"bob", 1.0}}) {
    v1::SubmissionReport report = Counting(std::string("sub-new-") + user, user, ms, "NVIDIA H200");
    report.mutable_submission()->set_rerun_of(std::string("sub-old-") + user);
    reruns.push_back(report);
  }
  v1::SubmissionReport failed;
  failed.mutable_submission()->set_user("cy");
  failed.mutable_submission()->set_rerun_of("sub-old-cy");
  failed.set_why_not("problem 1 (n=1024): error: the kernel did not compile");
  reruns.push_back(failed);

  const std::string text = FormatRerun(plan, reruns);
  EXPECT_THAT(text, HasSubstr("re-run of lab1: the top 3 learners' best submissions"));
  // ada was first and is second now; bob the reverse.
  EXPECT_THAT(text, ::testing::ContainsRegex(
                        "ada +1 +1\\.000 ms \\[1\\.000, 1\\.000\\] +NVIDIA H100 +1\\.500 ms "
                        "\\[1\\.500, 1\\.500\\] +NVIDIA H200 +2 +1\\.5"));
  EXPECT_THAT(text, ::testing::ContainsRegex("bob +2 .* NVIDIA H200 +1 +0\\.5"));
  EXPECT_THAT(text, HasSubstr("does not count: problem 1 (n=1024): error: the kernel did not "
                              "compile"));
}

TEST(FormatSubmissionReport, SaysEachProblemTheScoreAndHowTheKernelCompiled) {
  v1::SubmissionReport report = Counting("sub-00000000000a", "ada", 0.5, "NVIDIA H200");
  report.mutable_submission()->set_assignment("lab1");
  report.mutable_submission()->mutable_kernel()->set_name("my_add.cu");
  v1::ScoreSpeedup& speedup = *report.add_speedups();
  speedup.set_baseline("naive");
  speedup.set_speedup(4);
  v1::ProblemResult& problem = *report.add_problems();
  problem.set_problem("n=1048576");
  problem.set_dtype("fp32");
  problem.set_run_id("run-1");
  problem.mutable_result()->mutable_stats()->set_median_ms(0.5);
  v1::CompileFacts& facts = *problem.mutable_result()->mutable_compile();
  facts.set_arch("sm_90a");
  facts.set_registers_per_thread(40);
  facts.set_spill_store_bytes(8);
  facts.set_log("my_add.cu(3): warning: unused");
  const std::string text = FormatSubmissionReport(report);
  EXPECT_THAT(text, HasSubstr("submission sub-00000000000a to lab1 by ada"));
  EXPECT_THAT(text, ::testing::ContainsRegex("1 +n=1048576 +fp32 +0\\.5000 +- +yes +run-1"));
  EXPECT_THAT(text, HasSubstr("compiled: sm_90a, 40 registers, spills 8 B stored / 0 B loaded"));
  EXPECT_THAT(text, HasSubstr("compiler log:\nmy_add.cu(3): warning: unused\n"));
  EXPECT_THAT(text, HasSubstr("score: 0.5000 ms [0.5000, 0.5000] (geometric mean of the medians; "
                              "4x vs naive)"));
  EXPECT_THAT(text, HasSubstr("measured on: NVIDIA H200"));

  report.set_counts(false);
  report.set_why_not("problem 1 (n=1048576): failed verification");
  EXPECT_THAT(FormatSubmissionReport(report),
              HasSubstr("does not count: problem 1 (n=1048576): failed verification"));
}

}  // namespace
}  // namespace kbench::client
