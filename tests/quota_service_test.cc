// The Quotas service over a SQLite store, in-process, with users signed in
// by the test authenticator: a cohort's instructor (or an admin) sets its
// quotas, which take effect for its learners and outlive a restart; others
// may not; bad values are refused naming the field and the limit; a
// learner sees their own quotas and usage.
#include "server/front/quota_service.h"

#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "server/front/cohort_quota_refresh.h"
#include "server/front/quota_limits.h"
#include "server/store/run_store.h"
#include "tests/loopback_service.h"
#include "tests/run_records.h"
#include "tests/temp_dir.h"
#include "tests/test_authenticator.h"

namespace kbench::server {
namespace {

using ::kbench::testing::TestAuthenticator;

int64_t NowUnixMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

class QuotaServiceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    authenticator_.Add("ada", "cohort-1", identity::Role::kLearner);
    authenticator_.Add("tess", "cohort-1", identity::Role::kInstructor);
    authenticator_.Add("otto", "cohort-2", identity::Role::kInstructor);
    authenticator_.Add("root", "", identity::Role::kAdmin);
    Start();
  }
  void TearDown() override { Stop(); }

  // Opens the store and serves the service over it, as a server starts.
  void Start() {
    absl::StatusOr<std::unique_ptr<store::RunStore>> store =
        store::OpenStore(dir_.path() + "/runs.db");
    ASSERT_TRUE(store.ok()) << store.status();
    store_ = *std::move(store);
    absl::StatusOr<std::map<std::string, v1::QuotaOverrides>> overrides = store_->CohortQuotas();
    ASSERT_TRUE(overrides.ok()) << overrides.status();
    gate_ = std::make_unique<QuotaGate>(
        DefaultQuotas(),
        [this](const std::string& user, int64_t since) {
          return store_->DeviceTimeOf(user, since);
        },
        *std::move(overrides));
    service_ = std::make_unique<QuotaService>(*gate_, *store_, &authenticator_);
    server_ = std::make_unique<::kbench::testing::LoopbackService>(service_.get());
    ASSERT_TRUE(server_->ok());
    stub_ = v1::Quotas::NewStub(server_->Channel());
  }
  void Stop() {
    server_.reset();
    service_.reset();
    gate_.reset();
    store_.reset();
  }

  grpc::Status Set(const std::string& user, const std::string& cohort,
                   const v1::QuotaOverrides& overrides, v1::QuotaReport* report) {
    grpc::ClientContext context;
    TestAuthenticator::SignIn(context, user);
    v1::SetCohortQuotasRequest request;
    request.set_cohort(cohort);
    *request.mutable_overrides() = overrides;
    return stub_->SetCohortQuotas(&context, request, report);
  }
  grpc::Status Get(const std::string& user, const std::string& cohort, v1::QuotaReport* report) {
    grpc::ClientContext context;
    TestAuthenticator::SignIn(context, user);
    v1::GetQuotasRequest request;
    request.set_cohort(cohort);
    return stub_->GetQuotas(&context, request, report);
  }

  ::kbench::testing::TempDir dir_;
  TestAuthenticator authenticator_;
  std::unique_ptr<store::RunStore> store_;
  std::unique_ptr<QuotaGate> gate_;
  std::unique_ptr<QuotaService> service_;
  std::unique_ptr<::kbench::testing::LoopbackService> server_;
  std::unique_ptr<v1::Quotas::Stub> stub_;
};

TEST_F(QuotaServiceTest, TheInstructorSetsTheCohortsQuotasForItsLearners) {
  v1::QuotaOverrides overrides;
  overrides.set_queued_runs(2);
  overrides.set_device_seconds_per_hour(600);
  v1::QuotaReport report;
  ASSERT_TRUE(Set("tess", "cohort-1", overrides, &report).ok());
  EXPECT_EQ(report.cohort(), "cohort-1");
  EXPECT_EQ(report.limits().queued_runs(), 2u);
  EXPECT_EQ(report.limits().device_seconds_per_hour(), 600);
  EXPECT_EQ(report.limits().runs_per_minute(), DefaultQuotas().runs_per_minute());
  EXPECT_EQ(gate_->QuotasOf({"ada", "cohort-1", identity::Role::kLearner}).queued_runs(), 2u);
  EXPECT_EQ(gate_->QuotasOf({"bea", "cohort-2", identity::Role::kLearner}).queued_runs(),
            DefaultQuotas().queued_runs());

  // A second set changes only the fields it sets.
  v1::QuotaOverrides more;
  more.set_runs_per_minute(5);
  ASSERT_TRUE(Set("root", "cohort-1", more, &report).ok());
  EXPECT_EQ(report.limits().queued_runs(), 2u);
  EXPECT_EQ(report.limits().runs_per_minute(), 5u);
  EXPECT_TRUE(report.overrides().has_runs_per_minute());
  EXPECT_FALSE(report.overrides().has_open_streams());

  // They outlive a restart.
  Stop();
  Start();
  ASSERT_TRUE(Get("tess", "cohort-1", &report).ok());
  EXPECT_EQ(report.limits().queued_runs(), 2u);
  EXPECT_EQ(report.limits().device_seconds_per_hour(), 600);
  EXPECT_EQ(report.limits().runs_per_minute(), 5u);
}

// Two servers share the store: quotas set through one reach the other's
// gate within its refresh period (here 50 ms instead of
// kCohortQuotaRefreshPeriod), without a restart.
TEST_F(QuotaServiceTest, QuotasSetThroughOneServerReachAnotherSharingTheStore) {
  absl::StatusOr<std::unique_ptr<store::RunStore>> other_store =
      store::OpenStore(dir_.path() + "/runs.db", "other-host");
  ASSERT_TRUE(other_store.ok()) << other_store.status();
  QuotaGate other(DefaultQuotas(), {}, *(*other_store)->CohortQuotas());
  CohortQuotaRefresh refresh(
      other, [&] { return (*other_store)->CohortQuotas(); }, std::chrono::milliseconds(50));
  v1::QuotaOverrides overrides;
  overrides.set_queued_runs(3);
  v1::QuotaReport report;
  ASSERT_TRUE(Set("tess", "cohort-1", overrides, &report).ok());
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (other.CohortQuotas("cohort-1").queued_runs() != 3u &&
         std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_EQ(other.CohortQuotas("cohort-1").queued_runs(), 3u);
  EXPECT_EQ(other.QuotasOf({"ada", "cohort-1", identity::Role::kLearner}).queued_runs(), 3u);
}

// Two servers share the store: the counts of waiting and open runs and of
// the minute's requests add the runs the other recorded of the learner.
TEST(QuotaGateAcrossServers, QueuedOpenAndRateCountTheOtherServersRuns) {
  ::kbench::testing::TempDir dir;
  absl::StatusOr<std::unique_ptr<store::RunStore>> a =
      store::OpenStore(dir.path() + "/runs.db", "host-a");
  absl::StatusOr<std::unique_ptr<store::RunStore>> b =
      store::OpenStore(dir.path() + "/runs.db", "host-b");
  ASSERT_TRUE(a.ok() && b.ok()) << a.status() << b.status();
  v1::QuotaLimits quotas;
  quotas.set_queued_runs(2);
  quotas.set_open_streams(3);
  quotas.set_runs_per_minute(4);
  QuotaGate gate(quotas, {}, {}, [&](const std::string& user, int64_t since) {
    return (*a)->ActivityElsewhereOf(user, since);
  });
  // Host b has one run of ada waiting and one running, both this minute,
  // and an old one that ended.
  const int64_t now = NowUnixMs();
  ASSERT_TRUE(
      (*b)->Accept(::kbench::testing::AdmittedRun("b1", now - 1000, "lab1", "attention", "ada"))
          .ok());
  ASSERT_TRUE(
      (*b)->Accept(::kbench::testing::AdmittedRun("b2", now - 900, "lab1", "attention", "ada"))
          .ok());
  ASSERT_TRUE((*b)->Start("b2", ::kbench::testing::TestDevice(),
                          ::kbench::testing::TestStarted("b2"), now - 800)
                  .ok());
  ASSERT_TRUE(
      (*b)->Accept(::kbench::testing::AdmittedRun("b0", now - 120000, "lab1", "attention", "ada"))
          .ok());
  ASSERT_TRUE((*b)->Finish("b0", ::kbench::testing::FullOutcome("b0", now - 110000)).ok());

  RunAdmission run;
  run.principal = {"ada", "cohort-1", identity::Role::kLearner};
  run.run_id = "a1";
  run.unix_ms = now;
  ASSERT_TRUE(gate.CountRequest(run).ok());  // 0 here + 2 there of 4
  ASSERT_TRUE(gate.Admit(run).ok());         // waiting 0 + 1 of 2; open 0 + 2 of 3
  run.run_id = "a2";
  ASSERT_TRUE(gate.CountRequest(run).ok());  // 1 + 2 of 4
  const absl::Status waiting = gate.Admit(run);
  EXPECT_TRUE(absl::IsResourceExhausted(waiting)) << waiting;
  EXPECT_NE(waiting.message().find("queued runs 2"), std::string::npos) << waiting;

  absl::StatusOr<v1::QuotaUsage> usage = gate.UsageOf("ada", now);
  ASSERT_TRUE(usage.ok()) << usage.status();
  EXPECT_EQ(usage->queued_runs(), 2u);
  EXPECT_EQ(usage->open_streams(), 3u);
  EXPECT_EQ(usage->runs_last_minute(), 4u);

  run.run_id = "a3";
  const absl::Status rate = gate.CountRequest(run);  // 2 + 2 of 4
  EXPECT_TRUE(absl::IsResourceExhausted(rate)) << rate;
  EXPECT_NE(rate.message().find("runs 4 per minute"), std::string::npos) << rate;

  // Once b's waiting run starts, a's second run fits the waiting quota but
  // not the open one (1 here + 2 there of 3).
  ASSERT_TRUE((*b)->Start("b1", ::kbench::testing::TestDevice(),
                          ::kbench::testing::TestStarted("b1"), now + 1)
                  .ok());
  run.run_id = "a2";
  const absl::Status open = gate.Admit(run);
  EXPECT_TRUE(absl::IsResourceExhausted(open)) << open;
  EXPECT_NE(open.message().find("open run streams 3"), std::string::npos) << open;
}

// A read of the store that started before this server's own change must
// not undo it when it lands after.
TEST(QuotaGateOverrides, AReadFromBeforeALocalChangeDoesNotUndoIt) {
  QuotaGate gate(DefaultQuotas(), {});
  const uint64_t before = gate.OverridesVersion();
  v1::QuotaOverrides mine;
  mine.set_queued_runs(4);
  gate.SetOverrides("cohort-1", mine);
  EXPECT_FALSE(gate.ReplaceOverrides({}, before));
  EXPECT_EQ(gate.CohortQuotas("cohort-1").queued_runs(), 4u);
  // A read that started after the change replaces.
  v1::QuotaOverrides theirs;
  theirs.set_queued_runs(6);
  EXPECT_TRUE(gate.ReplaceOverrides({{"cohort-1", theirs}}, gate.OverridesVersion()));
  EXPECT_EQ(gate.CohortQuotas("cohort-1").queued_runs(), 6u);
}

TEST_F(QuotaServiceTest, OnlyTheCohortsInstructorOrAnAdminMayManageIt) {
  v1::QuotaOverrides overrides;
  overrides.set_queued_runs(1);
  v1::QuotaReport report;
  for (const char* user : {"ada", "otto"}) {
    const grpc::Status set = Set(user, "cohort-1", overrides, &report);
    EXPECT_EQ(set.error_code(), grpc::StatusCode::PERMISSION_DENIED) << user;
    EXPECT_EQ(set.error_message(),
              "cohort: only the instructor of cohort \"cohort-1\" or an admin may manage "
              "its quotas");
    EXPECT_EQ(Get(user, "cohort-1", &report).error_code(), grpc::StatusCode::PERMISSION_DENIED);
  }
  EXPECT_EQ(gate_->CohortQuotas("cohort-1").queued_runs(), DefaultQuotas().queued_runs());
  grpc::ClientContext anonymous;
  v1::SetCohortQuotasRequest request;
  request.set_cohort("cohort-1");
  EXPECT_EQ(stub_->SetCohortQuotas(&anonymous, request, &report).error_code(),
            grpc::StatusCode::UNAUTHENTICATED);
}

TEST_F(QuotaServiceTest, RefusesValuesOverTheLimitNamingTheField) {
  v1::QuotaReport report;
  v1::QuotaOverrides too_many;
  too_many.set_queued_runs(20000);
  grpc::Status set = Set("tess", "cohort-1", too_many, &report);
  EXPECT_EQ(set.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(set.error_message(), "overrides.queued_runs must be between 0 and 10000, got 20000");
  v1::QuotaOverrides negative;
  negative.set_device_seconds_per_day(-1);
  set = Set("tess", "cohort-1", negative, &report);
  EXPECT_EQ(set.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(set.error_message(),
            "overrides.device_seconds_per_day must be between 0 and 5529600, got -1");
  set = Set("root", "", too_many, &report);
  EXPECT_EQ(set.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(set.error_message(), "cohort must be 1 to 128 bytes, got 0");
  set = Set("root", std::string(129, 'c'), {}, &report);
  EXPECT_EQ(set.error_message(), "cohort must be 1 to 128 bytes, got 129");
}

TEST_F(QuotaServiceTest, ALearnerSeesTheirOwnQuotasAndUsage) {
  // ada ran for 2.5 s a minute ago, and 100 s two hours ago.
  const int64_t now = NowUnixMs();
  const auto ran = [&](const std::string& id, int64_t start, int64_t end) {
    ASSERT_TRUE(store_->Accept(testing::AdmittedRun(id, start - 1)).ok());
    ASSERT_TRUE(store_->Start(id, testing::TestDevice(), testing::TestStarted(id), start).ok());
    ASSERT_TRUE(store_->Finish(id, testing::FullOutcome(id, end)).ok());
  };
  ran("recent", now - 62500, now - 60000);
  ran("earlier", now - 7300000, now - 7200000);
  v1::QuotaOverrides overrides;
  overrides.set_queued_runs(3);
  v1::QuotaReport report;
  ASSERT_TRUE(Set("tess", "cohort-1", overrides, &report).ok());

  ASSERT_TRUE(Get("ada", "", &report).ok());
  EXPECT_EQ(report.cohort(), "cohort-1");
  EXPECT_FALSE(report.unlimited());
  EXPECT_EQ(report.limits().queued_runs(), 3u);
  EXPECT_DOUBLE_EQ(report.usage().device_seconds_last_hour(), 2.5);
  EXPECT_DOUBLE_EQ(report.usage().device_seconds_last_day(), 102.5);
  EXPECT_EQ(report.usage().queued_runs(), 0u);

  ASSERT_TRUE(Get("tess", "", &report).ok());
  EXPECT_TRUE(report.unlimited());
  EXPECT_EQ(report.limits().queued_runs(), 0u);
}

}  // namespace
}  // namespace kbench::server
