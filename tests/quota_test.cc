// Per-learner quotas through the service, in-process with learners signed
// in by the test authenticator: each quota refuses the run over it with
// RESOURCE_EXHAUSTED naming the quota, its limit and when it frees up; the
// refusal reaches the observers (the store); other learners, instructors
// and runs within the quotas go on.
#include "server/front/quota_gate.h"

#include <gtest/gtest.h>

#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "server/front/service.h"
#include "tests/fake_device.h"
#include "tests/in_process_server.h"
#include "tests/test_authenticator.h"

namespace kbench::server {
namespace {

using InProcessServer = TestServer;
using testing::TestAuthenticator;

int64_t NowUnixMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// The refusals the observers see: run id and message.
class Refusals final : public RunObserver {
 public:
  void OnRefused(const RunAdmission& run, const absl::Status& why) override {
    std::lock_guard lock(mu_);
    messages_.push_back(run.principal.user + ": " + std::string(why.message()));
  }
  std::vector<std::string> messages() const {
    std::lock_guard lock(mu_);
    return messages_;
  }

 private:
  mutable std::mutex mu_;
  std::vector<std::string> messages_;
};

// A server over a fake device whose samples take 2 ms, where ada and bob
// are learners of cohort-1 and tess its instructor.
class QuotaServer {
 public:
  explicit QuotaServer(v1::QuotaLimits quotas, DeviceTimeQuery device_time = {})
      : gate_(std::move(quotas), std::move(device_time)) {
    authenticator_.Add("ada", "cohort-1", identity::Role::kLearner);
    authenticator_.Add("bob", "cohort-1", identity::Role::kLearner);
    authenticator_.Add("tess", "cohort-1", identity::Role::kInstructor);
    ServiceOptions options{CpuLimits(), DefaultTiming()};
    options.authenticator = &authenticator_;
    options.quotas = &gate_;
    server_ = std::make_unique<InProcessServer>(
        std::make_unique<testing::FakeDevice>(
            std::vector<std::pair<std::string, testing::FakeVariant>>{{"naive", {1.0}}},
            /*sleep_ms=*/2),
        options, std::vector<RunObserver*>{&refusals_});
    stub_ = server_->Stub();
  }

  // A run of `user` that samples for `ms`; the reader's first event read.
  struct Open {
    std::unique_ptr<grpc::ClientContext> context = std::make_unique<grpc::ClientContext>();
    std::unique_ptr<grpc::ClientReader<v1::RunEvent>> reader;
    v1::RunEvent first;
    bool read = false;
  };
  Open Start(const std::string& user, double ms) {
    Open open;
    TestAuthenticator::SignIn(*open.context, user);
    open.context->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(60));
    v1::VectorAddRequest request;
    request.set_n(100);
    request.mutable_timing()->set_warmup_runs(0);
    request.mutable_timing()->set_min_samples(1);
    request.mutable_timing()->set_max_samples(100000);
    request.mutable_timing()->set_min_time_ms(ms);
    request.mutable_timing()->set_time_budget_ms(ms);
    open.reader = stub_->RunVectorAdd(open.context.get(), request);
    open.read = open.reader->Read(&open.first);
    return open;
  }
  // Reads `open` to its end.
  static grpc::Status End(Open& open, bool cancel) {
    if (cancel) open.context->TryCancel();
    v1::RunEvent event;
    while (open.reader->Read(&event)) {
    }
    return open.reader->Finish();
  }
  // Runs a short run of `user` to its end.
  grpc::Status Run(const std::string& user) {
    Open open = Start(user, 1);
    return End(open, false);
  }
  // Starts a run of `user` and waits until a device took it.
  Open Running(const std::string& user) {
    Open open = Start(user, 60000);
    v1::RunEvent event = open.first;
    while (!event.has_started() && open.reader->Read(&event)) {
    }
    EXPECT_TRUE(event.has_started());
    return open;
  }

  Refusals& refusals() { return refusals_; }

 private:
  TestAuthenticator authenticator_;
  QuotaGate gate_;
  Refusals refusals_;
  std::unique_ptr<InProcessServer> server_;
  std::unique_ptr<v1::KernelBench::Stub> stub_;
};

// The refusal a RESOURCE_EXHAUSTED carries in its details.
v1::Refusal RefusalOf(const grpc::Status& status) {
  v1::Refusal refusal;
  EXPECT_TRUE(refusal.ParseFromString(status.error_details()));
  return refusal;
}

void ExpectExhausted(const grpc::Status& status, const std::string& message) {
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << status.error_message();
  EXPECT_EQ(status.error_message(), message);
  // The learner's own quota, not a busy server.
  EXPECT_EQ(RefusalOf(status).reason(), v1::Refusal::REASON_QUOTA);
}

TEST(Quotas, QueuedRunsAtOnceArePerLearner) {
  v1::QuotaLimits quotas;
  quotas.set_queued_runs(1);
  QuotaServer server(quotas);
  QuotaServer::Open running = server.Running("ada");
  QuotaServer::Open waiting = server.Start("ada", 1);
  ASSERT_TRUE(waiting.read && waiting.first.has_queued());
  QuotaServer::Open refused = server.Start("ada", 1);
  EXPECT_FALSE(refused.read);
  ExpectExhausted(QuotaServer::End(refused, false),
                  "quota: queued runs 1 at once per learner used; resets when one of your "
                  "waiting runs starts");
  // Another learner, and the instructor, are not held by ada's quota.
  QuotaServer::Open bob = server.Start("bob", 1);
  EXPECT_TRUE(bob.read && bob.first.has_queued());
  QuotaServer::Open tess = server.Start("tess", 1);
  EXPECT_TRUE(tess.read && tess.first.has_queued());
  // Once ada's waiting run has run, ada may queue again.
  QuotaServer::End(running, true);
  EXPECT_TRUE(QuotaServer::End(waiting, false).ok());
  EXPECT_TRUE(QuotaServer::End(bob, false).ok());
  EXPECT_TRUE(QuotaServer::End(tess, false).ok());
  EXPECT_TRUE(server.Run("ada").ok());
  EXPECT_EQ(server.refusals().messages(),
            (std::vector<std::string>{"ada: quota: queued runs 1 at once per learner used; "
                                      "resets when one of your waiting runs starts"}));
}

TEST(Quotas, OpenStreamsCountRunningRunsToo) {
  v1::QuotaLimits quotas;
  quotas.set_open_streams(1);
  QuotaServer server(quotas);
  QuotaServer::Open running = server.Running("ada");
  ExpectExhausted(server.Run("ada"),
                  "quota: open run streams 1 at once per learner used; resets when one of "
                  "your runs ends");
  // The client's cancellation reaches the server a moment after the
  // client stops waiting; then the stream is closed and ada may run again.
  QuotaServer::End(running, true);
  grpc::Status again = server.Run("ada");
  for (int i = 0; i < 100 && again.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    again = server.Run("ada");
  }
  EXPECT_TRUE(again.ok()) << again.error_message();
}

TEST(Quotas, RunsPerMinuteSaysWhenTheNextIsAllowed) {
  v1::QuotaLimits quotas;
  quotas.set_runs_per_minute(2);
  QuotaServer server(quotas);
  EXPECT_TRUE(server.Run("ada").ok());
  EXPECT_TRUE(server.Run("ada").ok());
  const grpc::Status refused = server.Run("ada");
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_TRUE(refused.error_message() ==
                  "quota: runs 2 per minute used (refused requests count too); resets in 60 s" ||
              refused.error_message() ==
                  "quota: runs 2 per minute used (refused requests count too); resets in 59 s")
      << refused.error_message();
  // Clients wait this long before they retry.
  EXPECT_EQ(RefusalOf(refused).reason(), v1::Refusal::REASON_QUOTA);
  EXPECT_GT(RefusalOf(refused).retry_after_seconds(), 55);
  EXPECT_LE(RefusalOf(refused).retry_after_seconds(), 60);
  EXPECT_TRUE(server.Run("bob").ok());
}

TEST(Quotas, DeviceTimePerHourAndPerDayComeFromTheStore) {
  v1::QuotaLimits quotas;
  quotas.set_device_seconds_per_hour(600);
  quotas.set_device_seconds_per_day(3000);
  // ada used 612 s in the last hour, the oldest of it ended 46 min ago;
  // bob used 100 s in the hour but 3000 s in the day, from 20 h ago.
  std::mutex mu;
  std::vector<std::string> asked;
  QuotaServer server(quotas, [&](const std::string& user, int64_t since) {
    const int64_t window = NowUnixMs() - since;
    const bool hour = window < 2 * 3600 * 1000;
    std::lock_guard lock(mu);
    asked.push_back(user + (hour ? " hour" : " day"));
    store::DeviceTime used;
    if (user == "ada") {
      used.seconds = 612;
      used.oldest_end_unix_ms = since + 14 * 60 * 1000 - 30 * 1000;
    } else if (user == "bob") {
      used.seconds = hour ? 100 : 3000;
      used.oldest_end_unix_ms = since + (hour ? 1000 : 4 * 3600 * 1000 - 1000);
    }
    return used;
  });
  const grpc::Status ada = server.Run("ada");
  ExpectExhausted(ada, "quota: device time 600 s per hour used (612 s); resets in 14 min");
  EXPECT_NEAR(RefusalOf(ada).retry_after_seconds(), 14 * 60 - 30, 5);
  ExpectExhausted(server.Run("bob"),
                  "quota: device time 3000 s per day used (3000 s); resets in 4 h");
  // The instructor has no quota: the store is not even asked.
  EXPECT_TRUE(server.Run("tess").ok());
  std::lock_guard lock(mu);
  EXPECT_EQ(asked, (std::vector<std::string>{"ada hour", "bob hour", "bob day"}));
}

TEST(Quotas, AStoreThatCannotAnswerRefusesWithUnavailable) {
  v1::QuotaLimits quotas;
  quotas.set_device_seconds_per_hour(600);
  QuotaServer server(quotas, [](const std::string&, int64_t) -> absl::StatusOr<store::DeviceTime> {
    return absl::UnavailableError("connection refused");
  });
  const grpc::Status status = server.Run("ada");
  EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_NE(status.error_message().find("connection refused"), std::string::npos);
}

TEST(Quotas, WaitsAreSaidInSecondsMinutesOrHours) {
  EXPECT_EQ(WaitText(1), "1 s");
  EXPECT_EQ(WaitText(59000), "59 s");
  EXPECT_EQ(WaitText(60000), "1 min");
  EXPECT_EQ(WaitText(14 * 60000 - 30000), "14 min");
  EXPECT_EQ(WaitText(3 * 3600000), "3 h");
  EXPECT_EQ(WaitText(-5), "0 s");
}

}  // namespace
}  // namespace kbench::server
