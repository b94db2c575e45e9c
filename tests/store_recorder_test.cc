// StoreRecorder driven by a fake run's observer calls, over a SQLite store;
// destroying the recorder waits for its queued writes.
#include <memory>
#include <optional>
#include <string>

#include "gtest/gtest.h"
#include "server/store/run_store.h"
#include "server/store/store_recorder.h"
#include "tests/run_records.h"
#include "tests/temp_dir.h"

namespace kbench::server::store {
namespace {

using ::kbench::testing::TestDevice;
using ::kbench::testing::TestStarted;

RunAdmission Admission(const std::string& run_id) {
  RunAdmission admission;
  admission.run_id = run_id;
  admission.peer = "ipv4:127.0.0.1:41000";
  admission.op = "attention";
  admission.request = ::kbench::testing::AdmittedRun(run_id, 1000).request();
  admission.unix_ms = 1000;
  return admission;
}

// A batch of one sample of each of two variants.
v1::RunEvent SampleBatch(uint32_t total, double naive_ms, double fused_ms) {
  v1::RunEvent event;
  for (const auto& [variant, ms] : {std::pair{"naive", naive_ms}, std::pair{"fused", fused_ms}}) {
    v1::VariantSamples* samples = event.mutable_samples()->add_variants();
    samples->set_variant(variant);
    samples->set_total(total);
    samples->add_ms(ms);
  }
  return event;
}

class StoreRecorderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<RunStore>> store = OpenStore(dir_.path() + "/runs.db");
    ASSERT_TRUE(store.ok()) << store.status();
    store_ = *std::move(store);
    // Each call of the clock is one second later.
    recorder_ = std::make_unique<StoreRecorder>(*store_, [this] { return now_ += 1000; });
  }

  // A run's calls up to its end, as the front makes them: two variants,
  // samples interleaved, each variant's result, and a summary when
  // `summary` is set.
  void RunUntilEnd(const std::string& run_id, std::optional<bool> all_verified) {
    recorder_->OnAccepted(Admission(run_id));
    v1::RunEvent queued;
    queued.mutable_queued()->set_run_id(run_id);
    recorder_->OnEvent(run_id, queued);
    recorder_->OnStarted(run_id, TestDevice());
    v1::RunEvent started;
    *started.mutable_started() = TestStarted(run_id);
    recorder_->OnEvent(run_id, started);
    for (uint32_t i = 0; i < 3; ++i)
      recorder_->OnEvent(run_id, SampleBatch(i + 1, 2.0 + i, 0.5 + i));
    if (!all_verified) return;
    for (const char* variant : {"naive", "fused"}) {
      v1::RunEvent result;
      result.mutable_variant_result()->set_variant(variant);
      result.mutable_variant_result()->mutable_verification()->set_passed(*all_verified);
      recorder_->OnEvent(run_id, result);
    }
    v1::RunEvent summary;
    summary.mutable_summary()->set_run_id(run_id);
    summary.mutable_summary()->set_all_verified(*all_verified);
    recorder_->OnEvent(run_id, summary);
  }

  // Waits for the recorder's writes, then reads the run.
  v1::RunRecord Stored(const std::string& run_id) {
    recorder_.reset();
    absl::StatusOr<v1::RunRecord> run = store_->Get(run_id);
    EXPECT_TRUE(run.ok()) << run.status();
    return run.ok() ? *run : v1::RunRecord();
  }

  ::kbench::testing::TempDir dir_;
  std::unique_ptr<RunStore> store_;
  int64_t now_ = 10'000;
  std::unique_ptr<StoreRecorder> recorder_;
};

TEST_F(StoreRecorderTest, AVerifiedRunIsStoredOkWithEverything) {
  RunUntilEnd("r1", true);
  recorder_->OnEnded("r1", absl::OkStatus());
  const v1::RunRecord run = Stored("r1");
  EXPECT_EQ(run.status(), v1::RUN_STATUS_OK);
  EXPECT_EQ(run.error(), "");
  EXPECT_EQ(run.peer(), "ipv4:127.0.0.1:41000");
  EXPECT_EQ(run.label(), "lab1");
  EXPECT_EQ(run.op(), "attention");
  EXPECT_EQ(run.request().seed(), 1234u);
  EXPECT_EQ(run.accepted_unix_ms(), 1000);
  EXPECT_EQ(run.started_unix_ms(), 11'000);
  EXPECT_EQ(run.ended_unix_ms(), 12'000);
  EXPECT_EQ(run.device().name(), "NVIDIA H200");
  EXPECT_EQ(run.device().copy_bandwidth_gbps(), 4237.5);
  // The worker's Started event replaced the one the front made.
  EXPECT_EQ(run.started().timing_method(), TestStarted("r1").timing_method());
  ASSERT_EQ(run.results_size(), 2);
  EXPECT_EQ(run.results(1).variant(), "fused");
  EXPECT_TRUE(run.summary().all_verified());
  ASSERT_EQ(run.samples_size(), 2);
  EXPECT_EQ(run.samples(0).variant(), "naive");
  EXPECT_EQ(std::vector<double>(run.samples(0).ms().begin(), run.samples(0).ms().end()),
            (std::vector<double>{2.0, 3.0, 4.0}));
  EXPECT_EQ(run.samples(1).variant(), "fused");
  EXPECT_EQ(std::vector<double>(run.samples(1).ms().begin(), run.samples(1).ms().end()),
            (std::vector<double>{0.5, 1.5, 2.5}));
}

TEST_F(StoreRecorderTest, ASummaryWithAFailedVariantIsFailedVerification) {
  RunUntilEnd("r1", false);
  recorder_->OnEnded("r1", absl::OkStatus());
  EXPECT_EQ(Stored("r1").status(), v1::RUN_STATUS_FAILED_VERIFICATION);
}

TEST_F(StoreRecorderTest, CancelledAndDeadlineExceededAreCancelled) {
  RunUntilEnd("r1", std::nullopt);
  recorder_->OnEnded("r1", absl::CancelledError("run cancelled by the client"));
  RunUntilEnd("r2", std::nullopt);
  recorder_->OnEnded("r2", absl::DeadlineExceededError("deadline exceeded"));
  recorder_.reset();
  EXPECT_EQ(store_->Get("r1")->status(), v1::RUN_STATUS_CANCELLED);
  EXPECT_EQ(store_->Get("r1")->error(), "run cancelled by the client");
  EXPECT_EQ(store_->Get("r2")->status(), v1::RUN_STATUS_CANCELLED);
  // What was sampled before the end is kept.
  EXPECT_EQ(store_->Get("r2")->samples_size(), 2);
}

TEST_F(StoreRecorderTest, AnyOtherEndIsAnErrorWithItsMessage) {
  RunUntilEnd("r1", std::nullopt);
  recorder_->OnEnded("r1", absl::InternalError("worker exited with status 7"));
  RunUntilEnd("r2", std::nullopt);
  recorder_->OnEnded("r2", absl::OkStatus());
  recorder_.reset();
  EXPECT_EQ(store_->Get("r1")->status(), v1::RUN_STATUS_ERROR);
  EXPECT_EQ(store_->Get("r1")->error(), "worker exited with status 7");
  EXPECT_EQ(store_->Get("r2")->status(), v1::RUN_STATUS_ERROR);
  EXPECT_EQ(store_->Get("r2")->error(), "the run ended without its summary");
}

TEST_F(StoreRecorderTest, ARefusedRunIsStoredRefusedWithItsReason) {
  recorder_->OnRefused(Admission("r1"),
                       absl::InvalidArgumentError("head_dim: 96 is not supported"));
  const v1::RunRecord run = Stored("r1");
  EXPECT_EQ(run.status(), v1::RUN_STATUS_REFUSED);
  EXPECT_EQ(run.error(), "head_dim: 96 is not supported");
  EXPECT_EQ(run.request().attention().seq_len(), 1000u);
}

TEST_F(StoreRecorderTest, StoreErrorsAreLoggedAndLaterRunsStillRecorded) {
  // Never accepted: the store refuses its start and end, the recorder goes on.
  recorder_->OnStarted("ghost", TestDevice());
  recorder_->OnEnded("ghost", absl::OkStatus());
  RunUntilEnd("r1", true);
  recorder_->OnEnded("r1", absl::OkStatus());
  EXPECT_EQ(Stored("r1").status(), v1::RUN_STATUS_OK);
  EXPECT_TRUE(absl::IsNotFound(store_->Get("ghost").status()));
}

}  // namespace
}  // namespace kbench::server::store
