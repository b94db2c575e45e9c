// AssignmentStore on both engines (SQLite and the PostgreSQL 15 the test
// starts): names are unique, edits replace, a cohort lists its own, the
// hourly limit holds in the store, a submission keeps its kernel's source
// once (beside the runs' kernels), and runs are found by their submission.
#include "server/store/assignment_store.h"

#include <memory>
#include <string>

#include "gtest/gtest.h"
#include "server/store/run_store.h"
#include "tests/postgres_fixture.h"
#include "tests/run_records.h"
#include "tests/temp_dir.h"

namespace kbench::server::store {
namespace {

using Engine = ::kbench::testing::StoreEngine;

v1::Assignment Named(const std::string& name, const std::string& cohort) {
  v1::Assignment assignment;
  assignment.set_name(name);
  assignment.set_cohort(cohort);
  assignment.set_op("vector_add");
  assignment.add_problems()->mutable_vector_add()->set_n(1024);
  assignment.add_baselines("naive");
  return assignment;
}

v1::Submission SubmissionOf(const std::string& id, const std::string& user, int64_t unix_ms,
                            const std::string& source = "kernel source") {
  v1::Submission submission;
  submission.set_submission_id(id);
  submission.set_assignment("lab1");
  submission.set_user(user);
  submission.set_submitted_unix_ms(unix_ms);
  submission.mutable_kernel()->set_name("my_add.cu");
  submission.mutable_kernel()->set_source(source);
  submission.add_runs()->mutable_vector_add()->set_n(1024);
  return submission;
}

class AssignmentStoreTest : public ::testing::TestWithParam<Engine> {
 protected:
  void SetUp() override {
    absl::StatusOr<std::string> spec = ::kbench::testing::FreshStoreSpec(GetParam(), dir_.path());
    ASSERT_TRUE(spec.ok()) << spec.status();
    spec_ = *spec;
    absl::StatusOr<std::unique_ptr<AssignmentStore>> store = OpenAssignmentStore(spec_);
    ASSERT_TRUE(store.ok()) << store.status();
    store_ = *std::move(store);
  }

  ::kbench::testing::TempDir dir_;
  std::string spec_;
  std::unique_ptr<AssignmentStore> store_;
};

TEST_P(AssignmentStoreTest, NamesAreUniqueAndAnEditReplaces) {
  ASSERT_TRUE(store_->Save(Named("lab1", "fall24"), false).ok());
  EXPECT_TRUE(absl::IsAlreadyExists(store_->Save(Named("lab1", "fall24"), false)));
  EXPECT_TRUE(absl::IsNotFound(store_->Save(Named("lab9", "fall24"), true)));
  v1::Assignment edited = Named("lab1", "fall24");
  edited.set_title("edited");
  ASSERT_TRUE(store_->Save(edited, true).ok());
  absl::StatusOr<v1::Assignment> got = store_->Get("lab1");
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(got->title(), "edited");
  EXPECT_TRUE(absl::IsNotFound(store_->Get("lab9").status()));
}

TEST_P(AssignmentStoreTest, ACohortListsItsOwnByName) {
  ASSERT_TRUE(store_->Save(Named("lab2", "fall24"), false).ok());
  ASSERT_TRUE(store_->Save(Named("lab1", "fall24"), false).ok());
  ASSERT_TRUE(store_->Save(Named("other", "spring25"), false).ok());
  absl::StatusOr<std::vector<v1::Assignment>> fall = store_->List("fall24");
  ASSERT_TRUE(fall.ok()) << fall.status();
  ASSERT_EQ(fall->size(), 2u);
  EXPECT_EQ((*fall)[0].name(), "lab1");
  EXPECT_EQ((*fall)[1].name(), "lab2");
  absl::StatusOr<std::vector<v1::Assignment>> all = store_->List("");
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->size(), 3u);
}

TEST_P(AssignmentStoreTest, TheHourlyLimitCountsTheLastHourOfOneLearner) {
  ASSERT_TRUE(store_->Save(Named("lab1", "fall24"), false).ok());
  const int64_t t = 10 * kSubmissionWindowMs;
  for (int i = 0; i < 2; ++i) {
    absl::StatusOr<std::optional<int64_t>> added = store_->AddSubmission(
        SubmissionOf("sub-00000000000" + std::to_string(i), "ada", t + i * 1000), 2);
    ASSERT_TRUE(added.ok()) << added.status();
    EXPECT_FALSE(added->has_value());
  }
  absl::StatusOr<std::optional<int64_t>> third =
      store_->AddSubmission(SubmissionOf("sub-000000000002", "ada", t + 5000), 2);
  ASSERT_TRUE(third.ok()) << third.status();
  ASSERT_TRUE(third->has_value()) << "a third within the hour is over the limit of 2";
  EXPECT_EQ(**third, t + kSubmissionWindowMs) << "the oldest leaves the hour then";
  // Another learner, and the same learner an hour later, may.
  third = store_->AddSubmission(SubmissionOf("sub-000000000003", "bob", t + 5000), 2);
  ASSERT_TRUE(third.ok());
  EXPECT_FALSE(third->has_value());
  third = store_->AddSubmission(
      SubmissionOf("sub-000000000004", "ada", t + kSubmissionWindowMs + 1), 2);
  ASSERT_TRUE(third.ok());
  EXPECT_FALSE(third->has_value());
  absl::StatusOr<std::vector<v1::Submission>> ada = store_->ListSubmissions("lab1", "ada");
  ASSERT_TRUE(ada.ok()) << ada.status();
  ASSERT_EQ(ada->size(), 3u);
  EXPECT_EQ((*ada)[0].submission_id(), "sub-000000000004") << "newest first";
  absl::StatusOr<std::vector<v1::Submission>> everyone = store_->ListSubmissions("lab1", "");
  ASSERT_TRUE(everyone.ok());
  EXPECT_EQ(everyone->size(), 4u);
}

TEST_P(AssignmentStoreTest, ASubmissionKeepsItsSourceOnceAndListsWithoutIt) {
  ASSERT_TRUE(store_->Save(Named("lab1", "fall24"), false).ok());
  ASSERT_TRUE(store_->AddSubmission(SubmissionOf("sub-00000000000a", "ada", 1000, "same"), 6).ok());
  ASSERT_TRUE(store_->AddSubmission(SubmissionOf("sub-00000000000b", "bob", 2000, "same"), 6).ok());
  absl::StatusOr<v1::Submission> got = store_->GetSubmission("sub-00000000000a");
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(got->kernel().source(), "same");
  EXPECT_EQ(got->runs_size(), 0) << "the runs to make are not stored";
  EXPECT_EQ(got->kernel_sha256().size(), 64u);
  absl::StatusOr<std::vector<v1::Submission>> listed = store_->ListSubmissions("lab1", "");
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->size(), 2u);
  EXPECT_TRUE((*listed)[0].kernel().source().empty());
  EXPECT_TRUE(absl::IsNotFound(store_->GetSubmission("sub-00000000000f").status()));
}

TEST_P(AssignmentStoreTest, RunsAreListedByTheirSubmissionWithTheirKernelsHashes) {
  absl::StatusOr<std::unique_ptr<RunStore>> runs = OpenStore(spec_);
  ASSERT_TRUE(runs.ok()) << runs.status();
  v1::RunRecord mine = ::kbench::testing::AdmittedRun("run-1", 1000);
  mine.mutable_request()->set_submission_id("sub-000000000001");
  v1::KernelSource& kernel = *mine.mutable_request()->add_kernels();
  kernel.set_name("my.cu");
  kernel.set_source("abc");
  ASSERT_TRUE((*runs)->Accept(mine).ok());
  ASSERT_TRUE((*runs)->Accept(::kbench::testing::AdmittedRun("run-2", 2000)).ok());
  v1::ListRunsRequest request;
  request.set_submission_id("sub-000000000001");
  absl::StatusOr<v1::ListRunsResponse> page = (*runs)->List(request, Samples::kOmit);
  ASSERT_TRUE(page.ok()) << page.status();
  ASSERT_EQ(page->runs_size(), 1);
  EXPECT_EQ(page->runs(0).run_id(), "run-1");
  absl::StatusOr<std::vector<std::string>> hashes = (*runs)->KernelHashes("run-1");
  ASSERT_TRUE(hashes.ok()) << hashes.status();
  ASSERT_EQ(hashes->size(), 1u);
  EXPECT_EQ((*hashes)[0],
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");  // sha256("abc")
  hashes = (*runs)->KernelHashes("run-2");
  ASSERT_TRUE(hashes.ok());
  EXPECT_TRUE(hashes->empty());
}

INSTANTIATE_TEST_SUITE_P(Engines, AssignmentStoreTest,
                         ::testing::Values(Engine::kSqlite, Engine::kPostgres),
                         [](const ::testing::TestParamInfo<Engine>& info) {
                           return ::kbench::testing::StoreEngineName(info.param);
                         });

}  // namespace
}  // namespace kbench::server::store
