// Assignment files (client/assignment_file.h): the keys, the problems as a
// sweep spec's points, times, and errors that name the file, line and key.
#include "client/assignment_file.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

#include "tests/temp_dir.h"

namespace kbench::client {
namespace {

using ::testing::HasSubstr;

constexpr int64_t kNow = 1'800'000'000'000;

TEST(AssignmentFile, ReadsEveryKeyAndExpandsTheProblems) {
  absl::StatusOr<v1::Assignment> lab = ParseAssignment(R"(name: lab1
title: Attention
cohort: fall24
opens: 2026-12-01T09:00Z
due: 2026-12-20T23:59Z
submissions-per-hour: 4
show-names: true
problems:
  op: attention
  axes: {seq: [512, 1024], head-dim: 64, causal: both}
  dtype: fp16
  variant: [naive, fused]
  timing: {budget-ms: 200}
)",
                                                       "lab1.yaml", kNow);
  ASSERT_TRUE(lab.ok()) << lab.status();
  EXPECT_EQ(lab->name(), "lab1");
  EXPECT_EQ(lab->cohort(), "fall24");
  EXPECT_EQ(lab->op(), "attention");
  EXPECT_EQ(lab->submissions_per_hour(), 4u);
  EXPECT_TRUE(lab->show_names());
  EXPECT_EQ(lab->opens_unix_ms(), 1796115600000);  // 2026-12-01T09:00Z
  EXPECT_EQ(lab->due_unix_ms(), 1797811140000);    // 2026-12-20T23:59Z
  ASSERT_EQ(lab->problems_size(), 4) << "two lengths, causal both";
  EXPECT_EQ(lab->problems(0).attention().seq_len(), 512u);
  EXPECT_FALSE(lab->problems(0).attention().causal());
  EXPECT_TRUE(lab->problems(1).attention().causal());
  EXPECT_EQ(lab->problems(0).dtype(), v1::DTYPE_FP16);
  EXPECT_EQ(lab->problems(0).timing().time_budget_ms(), 200);
  EXPECT_EQ(lab->problems(0).variants_size(), 0) << "the built-ins are baselines, not variants";
  EXPECT_THAT(lab->baselines(), ::testing::ElementsAre("naive", "fused"));
}

TEST(AssignmentFile, ErrorsNameTheFileTheLineAndTheKey) {
  auto error = [](const std::string& text) {
    absl::StatusOr<v1::Assignment> lab = ParseAssignment(text, "lab.yaml", kNow);
    EXPECT_FALSE(lab.ok());
    return std::string(lab.status().message());
  };
  const std::string problems = "problems:\n  op: vector_add\n  axes: {n: 1024}\n  variant: naive\n";
  EXPECT_THAT(error(problems), HasSubstr("lab.yaml: name: missing"));
  EXPECT_THAT(error("name: lab1\n"), HasSubstr("lab.yaml: problems: missing"));
  EXPECT_THAT(error("name: lab1\nproblems:\n  op: vector_add\n  axes: {n: 1024}\n"),
              HasSubstr("problems.variant: missing"));
  EXPECT_THAT(error("name: lab1\nsubmissions-per-hour: 0\n" + problems),
              HasSubstr("line 2: submissions-per-hour: '0' is not a count from 1"));
  EXPECT_THAT(error("name: lab1\ndue: someday\n" + problems), HasSubstr("line 2: due:"));
  EXPECT_THAT(error("name: lab1\nshow-names: maybe\n" + problems),
              HasSubstr("show-names: must be true or false"));
  EXPECT_THAT(error("name: lab1\n" + problems + "deadline: 1\n"),
              HasSubstr("line 6: deadline: is not a key of an assignment"));
  EXPECT_THAT(error("name: [lab1\n"), HasSubstr("not valid YAML or JSON"));
  EXPECT_THAT(error("name: lab1\nproblems:\n  op: nothing\n  variant: naive\n"),
              HasSubstr("names no op"));
}

TEST(AssignmentFile, FlagsReplaceTheFilesKeysAndAreNamedWhenRefused) {
  kbench::testing::TempDir dir;
  const std::string path = dir.path() + "/lab.yaml";
  std::ofstream(path) << "name: lab1\ntitle: From the file\nproblems:\n  op: vector_add\n"
                         "  axes: {n: 1024}\n  variant: naive\n";
  absl::StatusOr<v1::Assignment> lab =
      LoadAssignment(path, kNow, {{"name", "lab1b"}, {"due", "2d"}, {"show-names", "true"}});
  ASSERT_TRUE(lab.ok()) << lab.status();
  EXPECT_EQ(lab->name(), "lab1b");
  EXPECT_EQ(lab->title(), "From the file");
  EXPECT_EQ(lab->due_unix_ms(), kNow + 2 * 24 * 3600 * 1000) << "a span counts forward from now";
  EXPECT_TRUE(lab->show_names());
  lab = LoadAssignment(path, kNow, {{"submissions-per-hour", "0"}});
  ASSERT_FALSE(lab.ok());
  EXPECT_EQ(lab.status().message(), "--submissions-per-hour: '0' is not a count from 1");
  EXPECT_TRUE(absl::IsNotFound(LoadAssignment(dir.path() + "/none.yaml", kNow).status()));
}

TEST(AssignmentFile, FlagsAloneMakeAnAssignment) {
  absl::StatusOr<v1::Assignment> lab = LoadAssignment(
      "", kNow,
      {{"name", "lab0"},
       {"problems", "{op: vector_add, axes: {n: [1024, 2048]}, variant: [naive, vectorized]}"}});
  ASSERT_TRUE(lab.ok()) << lab.status();
  EXPECT_EQ(lab->name(), "lab0");
  EXPECT_EQ(lab->op(), "vector_add");
  ASSERT_EQ(lab->problems_size(), 2);
  EXPECT_EQ(lab->problems(1).vector_add().n(), 2048u);
  EXPECT_THAT(lab->baselines(), ::testing::ElementsAre("naive", "vectorized"));

  auto error = [](const std::vector<std::pair<std::string, std::string>>& flags) {
    absl::StatusOr<v1::Assignment> lab = LoadAssignment("", kNow, flags);
    EXPECT_FALSE(lab.ok());
    return std::string(lab.status().message());
  };
  EXPECT_THAT(error({{"problems", "{op: vector_add, axes: {n: 1024}, variant: naive}"}}),
              HasSubstr("--name: missing"));
  EXPECT_THAT(error({{"name", "lab0"}}), HasSubstr("--problems: missing"));
  EXPECT_THAT(error({{"name", "lab0"}, {"problems", "{op: vector_add, axes: {n: 1024}}"}}),
              HasSubstr("--problems: missing: name the built-in variants"));
  EXPECT_THAT(error({{"name", "lab0"}, {"problems", "{op: nothing, variant: naive}"}}),
              ::testing::AllOf(HasSubstr("--problems"), HasSubstr("names no op")));
}

}  // namespace
}  // namespace kbench::client
