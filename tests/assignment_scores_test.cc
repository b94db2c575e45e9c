// Ranking learners by their best counting submission (assignment_scores.h):
// competition ranks, ties by overlapping intervals measured against the
// first learner of a rank (so ties do not chain), a learner's best and
// attempts, and learners with nothing counting kept off the board.
#include "server/front/assignment_scores.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace kbench::server {
namespace {

v1::SubmissionReport Report(const std::string& user, double score, double spread, int64_t unix_ms,
                            bool counts = true) {
  v1::SubmissionReport report;
  report.mutable_submission()->set_user(user);
  report.mutable_submission()->set_submitted_unix_ms(unix_ms);
  report.set_counts(counts);
  if (counts) {
    report.set_score_ms(score);
    report.set_score_ci_low_ms(score - spread);
    report.set_score_ci_high_ms(score + spread);
  } else {
    report.set_why_not("problem 1: failed verification");
  }
  return report;
}

TEST(RankLearners, RanksTheBestOfEachLearnerWithCompetitionRanksAndUnchainedTies) {
  const std::vector<v1::SubmissionReport> reports = {
      Report("ada", 1.00, 0.02, 1),
      Report("ada", 0.90, 0.01, 2),   // ada's best: 0.90
      Report("bob", 0.905, 0.01, 3),  // overlaps ada's 0.90: tied, rank 1
      Report("cy", 0.925, 0.01, 4),   // overlaps bob's but not ada's: rank 3
      Report("dan", 2.0, 0.01, 5),    // rank 4
      Report("eve", 0, 0, 6, /*counts=*/false)};
  const v1::Leaderboard board = RankLearners(v1::Assignment(), reports);
  ASSERT_EQ(board.entries_size(), 4);
  EXPECT_EQ(board.without_counting(), 1u);
  EXPECT_EQ(board.entries(0).user(), "ada");
  EXPECT_NEAR(board.entries(0).best().score_ms(), 0.90, 1e-12);
  EXPECT_EQ(board.entries(0).attempts(), 2u);
  EXPECT_EQ(board.entries(0).last_attempt_unix_ms(), 2);
  EXPECT_EQ(board.entries(0).rank(), 1u);
  EXPECT_TRUE(board.entries(0).tied());
  EXPECT_EQ(board.entries(1).user(), "bob");
  EXPECT_EQ(board.entries(1).rank(), 1u);
  EXPECT_TRUE(board.entries(1).tied());
  EXPECT_EQ(board.entries(2).user(), "cy");
  EXPECT_EQ(board.entries(2).rank(), 3u);
  EXPECT_FALSE(board.entries(2).tied());
  EXPECT_EQ(board.entries(3).user(), "dan");
  EXPECT_EQ(board.entries(3).rank(), 4u);
}

TEST(ReportOf, AProblemWithoutARunKeepsTheSubmissionFromCounting) {
  v1::Assignment assignment;
  assignment.set_op("vector_add");
  assignment.add_problems()->mutable_vector_add()->set_n(1024);
  assignment.add_baselines("naive");
  v1::Submission submission;
  submission.mutable_kernel()->set_name("my.cu");
  const v1::SubmissionReport report = ReportOf(assignment, submission, {nullptr});
  EXPECT_FALSE(report.counts());
  EXPECT_EQ(report.why_not(), "problem 1 (n=1024): not run");
  EXPECT_EQ(report.score_ms(), 0);
}

}  // namespace
}  // namespace kbench::server
