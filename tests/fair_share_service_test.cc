// Fair share through the whole service, in-process on the CPU backend with
// learners signed in by the test authenticator: a flooding learner does not
// keep a cohort waiting, and a waiting run is told when it should start.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_format.h"
#include "server/run/run_observer.h"
#include "server/worker/backends/cpu/cpu_device.h"
#include "tests/fake_device.h"
#include "tests/in_process_server.h"
#include "tests/test_authenticator.h"

namespace kbench::server {
namespace {

using InProcessServer = TestServer;
using testing::TestAuthenticator;

// The users of the runs, in the order devices took them.
class StartOrder final : public RunObserver {
 public:
  void OnAccepted(const RunAdmission& run) override {
    std::lock_guard lock(mu_);
    user_of_[run.run_id] = run.principal.user;
  }
  void OnStarted(const std::string& run_id, const v1::DeviceInfo&) override {
    std::lock_guard lock(mu_);
    started_.push_back(user_of_.at(run_id));
  }
  std::vector<std::string> started() const {
    std::lock_guard lock(mu_);
    return started_;
  }

 private:
  mutable std::mutex mu_;
  std::map<std::string, std::string> user_of_;
  std::vector<std::string> started_;
};

// A small CPU vector add that samples for about 50 ms (a sample of 2^18
// elements takes a fraction of a millisecond).
v1::VectorAddRequest SmallRun() {
  v1::VectorAddRequest request;
  request.set_n(1 << 18);
  request.add_variants("naive");
  request.mutable_timing()->set_warmup_runs(0);
  request.mutable_timing()->set_min_samples(1);
  request.mutable_timing()->set_min_time_ms(50);
  request.mutable_timing()->set_time_budget_ms(60);
  return request;
}

// Runs `request` as `user` to its end; returns the final status.
grpc::Status RunAs(const InProcessServer& server, const std::string& user,
                   const v1::VectorAddRequest& request) {
  grpc::ClientContext context;
  TestAuthenticator::SignIn(context, user);
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(120));
  auto reader = server.Stub()->RunVectorAdd(&context, request);
  v1::RunEvent event;
  while (reader->Read(&event)) {
  }
  return reader->Finish();
}

TEST(FairShare, ThirtyLearnersEachStartBeforeTheFloodersFifthRun) {
  TestAuthenticator authenticator;
  authenticator.Add("flooder", "cohort-1", identity::Role::kLearner);
  std::vector<std::string> others;
  for (int i = 1; i <= 29; ++i) {
    others.push_back(absl::StrFormat("learner-%02d", i));
    authenticator.Add(others.back(), "cohort-1", identity::Role::kLearner);
  }
  StartOrder order;
  ServiceOptions options{CpuLimits(), DefaultTiming()};
  options.limits.set_max_queue(100);
  // The flooder's 50 streams open at once: this tests the queue's order, not
  // the per-client stream bound (stream_bounds_test.cc).
  options.limits.set_max_streams_per_client(100);
  options.authenticator = &authenticator;
  InProcessServer server(worker::backends::cpu::MakeCpuDevice(), options, {&order});

  std::mutex mu;
  std::vector<grpc::Status> statuses;
  std::vector<std::thread> clients;
  auto run = [&](const std::string& user) {
    clients.emplace_back([&, user] {
      const grpc::Status status = RunAs(server, user, SmallRun());
      std::lock_guard lock(mu);
      statuses.push_back(status);
    });
  };
  for (int i = 0; i < 50; ++i) run("flooder");
  // Every flood run is in before the others come.
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (server.scheduler().queued() + server.scheduler().running() < 50 &&
         std::chrono::steady_clock::now() < end)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  const uint32_t flood_in = server.scheduler().queued() + server.scheduler().running();
  for (const std::string& user : others) run(user);
  for (std::thread& client : clients) client.join();
  ASSERT_EQ(flood_in, 50u);

  ASSERT_EQ(statuses.size(), 79u);
  for (const grpc::Status& status : statuses) EXPECT_TRUE(status.ok()) << status.error_message();
  const std::vector<std::string> started = order.started();
  ASSERT_EQ(started.size(), 79u);
  size_t flood_runs = 0, fifth_flood_run = started.size();
  for (size_t i = 0; i < started.size(); ++i)
    if (started[i] == "flooder" && ++flood_runs == 5) fifth_flood_run = i;
  for (const std::string& user : others) {
    const size_t at = size_t(std::find(started.begin(), started.end(), user) - started.begin());
    EXPECT_LT(at, fifth_flood_run) << user << " started after the flooder's fifth run";
  }
}

TEST(FairShare, AWaitingRunIsToldAboutWhenItStarts) {
  TestAuthenticator authenticator;
  authenticator.Add("ada", "cohort-1", identity::Role::kLearner);
  authenticator.Add("bob", "cohort-1", identity::Role::kLearner);
  ServiceOptions options{CpuLimits(), DefaultTiming()};
  options.authenticator = &authenticator;
  InProcessServer server(
      std::make_unique<testing::FakeDevice>(
          std::vector<std::pair<std::string, testing::FakeVariant>>{{"naive", {1.0}}},
          /*sleep_ms=*/2),
      options);
  // ada's run samples for its whole 20 s budget; bob waits behind it.
  v1::VectorAddRequest long_run;
  long_run.set_n(100);
  long_run.mutable_timing()->set_warmup_runs(0);
  long_run.mutable_timing()->set_min_samples(100000);
  long_run.mutable_timing()->set_max_samples(100000);
  long_run.mutable_timing()->set_min_time_ms(20000);
  long_run.mutable_timing()->set_time_budget_ms(20000);
  grpc::ClientContext ada_context, bob_context;
  TestAuthenticator::SignIn(ada_context, "ada");
  TestAuthenticator::SignIn(bob_context, "bob");
  auto stub = server.Stub();
  auto ada = stub->RunVectorAdd(&ada_context, long_run);
  v1::RunEvent event;
  while (ada->Read(&event) && !event.has_started()) {
  }
  ASSERT_TRUE(event.has_started());
  auto bob = stub->RunVectorAdd(&bob_context, SmallRun());
  ASSERT_TRUE(bob->Read(&event));
  ASSERT_TRUE(event.has_queued());
  EXPECT_EQ(event.queued().position(), 0u);
  // ada's run is expected to take its budget, of which little has passed.
  EXPECT_GT(event.queued().eta_seconds(), 15);
  EXPECT_LE(event.queued().eta_seconds(), 20);
  ada_context.TryCancel();
  bob_context.TryCancel();
  while (ada->Read(&event)) {
  }
  while (bob->Read(&event)) {
  }
  ada->Finish();
  bob->Finish();
}

}  // namespace
}  // namespace kbench::server
