// The gRPC service in-process on a loopback port: event order, validation
// errors and their codes, queueing, cancellation, deadlines and draining.
#include "server/front/service.h"

#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <mutex>
#include <set>
#include <string>
#include <thread>

#include "grpcpp/grpcpp.h"
#include "tests/in_process_server.h"

namespace kbench::server {
namespace {

TEST(Service, VectorAddStreamsQueuedStartedSamplesResultsAndSummaryInOrder) {
  TestServer server(MakeCpuDevice());
  const Stream s = RunVectorAdd(*server.Stub(), SmallVectorAdd());
  ASSERT_TRUE(s.status.ok()) << s.status.error_message();
  ASSERT_GE(s.events.size(), 5u);
  EXPECT_TRUE(s.events[0].has_queued());
  EXPECT_EQ(s.events[0].queued().position(), 0u);
  const std::string run_id = s.events[0].queued().run_id();
  EXPECT_FALSE(run_id.empty());
  size_t i = 0;
  while (s.events[i].has_queued()) ++i;
  ASSERT_TRUE(s.events[i].has_started());
  EXPECT_EQ(s.events[i].started().backend(), "cpu");
  EXPECT_NE(s.events[i].started().seed(), 0u);  // the server picked one
  ++i;
  uint32_t samples = 0;
  for (; s.events[i].has_samples(); ++i)
    for (const auto& batch : s.events[i].samples().variants()) samples += batch.ms_size();
  EXPECT_GE(samples, 10u);  // at least 5 of each variant
  ASSERT_TRUE(s.events[i].has_variant_result());
  EXPECT_EQ(s.events[i].variant_result().variant(), "naive");
  EXPECT_TRUE(s.events[i].variant_result().verification().passed());
  ASSERT_TRUE(s.events[i + 1].has_variant_result());
  EXPECT_EQ(s.events[i + 1].variant_result().variant(), "vectorized");
  EXPECT_TRUE(s.events[i + 1].variant_result().verification().passed());
  ASSERT_EQ(i + 3, s.events.size());
  ASSERT_TRUE(s.events[i + 2].has_summary());
  EXPECT_EQ(s.events[i + 2].summary().run_id(), run_id);
  EXPECT_TRUE(s.events[i + 2].summary().all_verified());
  EXPECT_EQ(s.events[i + 2].summary().speedups_size(), 1);
}

TEST(Service, SameSeedGivesTheSameInputsAndErrors) {
  TestServer server(MakeCpuDevice());
  v1::AttentionRequest request;
  request.set_batch(1);
  request.set_heads(2);
  request.set_seq_len(33);
  request.set_head_dim(8);
  request.set_seed(1234);
  request.mutable_timing()->set_max_samples(3);
  double errors[2];
  for (double& error : errors) {
    grpc::ClientContext context;
    auto reader = server.Stub()->RunAttention(&context, request);
    const Stream s = ReadAll(*reader);
    ASSERT_TRUE(s.status.ok()) << s.status.error_message();
    bool found = false;
    for (const auto& e : s.events) {
      if (e.has_started()) {
        EXPECT_EQ(e.started().seed(), 1234u);
      }
      if (e.has_variant_result() && e.variant_result().variant() == "fused") {
        error = e.variant_result().verification().max_abs_error();
        found = true;
      }
    }
    ASSERT_TRUE(found);
  }
  EXPECT_EQ(errors[0], errors[1]);
}

TEST(Service, RefusesSeqLenZeroWithInvalidArgumentNamingTheField) {
  TestServer server(MakeCpuDevice());
  v1::AttentionRequest request;
  request.set_batch(1);
  request.set_heads(1);
  request.set_seq_len(0);
  request.set_head_dim(64);
  grpc::ClientContext context;
  const Stream s = ReadAll(*server.Stub()->RunAttention(&context, request));
  EXPECT_EQ(s.status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(s.status.error_message().find("seq_len"), std::string::npos)
      << s.status.error_message();
  EXPECT_TRUE(s.events.empty());
}

TEST(Service, RefusesAnUnknownVariantListingTheSupportedOnes) {
  TestServer server(MakeCpuDevice());
  v1::VectorAddRequest request = SmallVectorAdd();
  request.add_variants("bogus");
  const Stream s = RunVectorAdd(*server.Stub(), request);
  EXPECT_EQ(s.status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(s.status.error_message().find("\"bogus\""), std::string::npos);
  EXPECT_NE(s.status.error_message().find("naive, vectorized"), std::string::npos)
      << s.status.error_message();
}

TEST(Service, RefusesASizeOverTheLimitNamingFieldAndLimit) {
  v1::Limits limits = CpuLimits();
  limits.set_max_vector_n(5000);
  TestServer server(MakeCpuDevice(), limits);
  v1::VectorAddRequest request = SmallVectorAdd();
  request.set_n(5001);
  const Stream s = RunVectorAdd(*server.Stub(), request);
  EXPECT_EQ(s.status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(s.status.error_message(), "n must be between 1 and 5000, got 5001");
}

TEST(Service, ASecondClientWaitsAndIsToldItsPosition) {
  TestServer server(SlowDevice(/*sleep_ms=*/2));
  auto stub = server.Stub();
  grpc::ClientContext first_context;
  auto first = stub->RunVectorAdd(&first_context, LongVectorAdd());
  ASSERT_TRUE(ReadUntil(*first, [](const auto& e) { return e.has_started(); }));

  v1::VectorAddRequest quick = LongVectorAdd();
  quick.mutable_timing()->set_min_samples(2);
  quick.mutable_timing()->set_max_samples(2);
  quick.mutable_timing()->set_min_time_ms(0);
  grpc::ClientContext second_context, third_context;
  auto second = stub->RunVectorAdd(&second_context, quick);
  v1::RunEvent event;
  ASSERT_TRUE(second->Read(&event));
  ASSERT_TRUE(event.has_queued());
  EXPECT_EQ(event.queued().position(), 0u);
  EXPECT_EQ(event.queued().running(), 1u);
  auto third = stub->RunVectorAdd(&third_context, quick);
  ASSERT_TRUE(third->Read(&event));
  ASSERT_TRUE(event.has_queued());
  EXPECT_EQ(event.queued().position(), 1u);
  EXPECT_EQ(server.scheduler().queued(), 2u);

  // The first run ends: the second starts, the third moves to position 0.
  first_context.TryCancel();
  ReadAll(*first);
  std::vector<v1::RunEvent> seen;
  ASSERT_TRUE(ReadUntil(
      *third, [](const auto& e) { return e.has_queued() && e.queued().position() == 0; }, &seen));
  const Stream second_rest = ReadAll(*second);
  EXPECT_TRUE(second_rest.status.ok()) << second_rest.status.error_message();
  const Stream third_rest = ReadAll(*third);
  EXPECT_TRUE(third_rest.status.ok()) << third_rest.status.error_message();
  ASSERT_FALSE(third_rest.events.empty());
  EXPECT_TRUE(third_rest.events.back().has_summary());
}

TEST(Service, ClientCancellationStopsTheRunOnTheServer) {
  auto device = SlowDevice(/*sleep_ms=*/2);
  FakeDevice* fake = static_cast<FakeDevice*>(device.get());
  TestServer server(std::move(device));
  grpc::ClientContext context;
  auto reader = server.Stub()->RunVectorAdd(&context, LongVectorAdd());
  ASSERT_TRUE(ReadUntil(*reader, [](const auto& e) { return e.has_samples(); }));
  context.TryCancel();
  const Stream rest = ReadAll(*reader);
  EXPECT_EQ(rest.status.error_code(), grpc::StatusCode::CANCELLED);
  ASSERT_TRUE(Eventually([&] { return server.scheduler().running() == 0; }));
  const int after = fake->timed_count();
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(fake->timed_count(), after);  // no samples after the stop
  EXPECT_LT(after, 1000);
}

// Counts the runs that ended, and what observers are told of a run after
// its end.
class EndWatcher final : public RunObserver {
 public:
  void OnStarted(const std::string& run_id, const v1::DeviceInfo&) override { Saw(run_id); }
  void OnEvent(const std::string& run_id, const v1::RunEvent&) override { Saw(run_id); }
  void OnEnded(const std::string& run_id, const absl::Status&) override {
    std::lock_guard lock(mu_);
    ended_.insert(run_id);
  }
  size_t ended() const {
    std::lock_guard lock(mu_);
    return ended_.size();
  }
  int after_end() const {
    std::lock_guard lock(mu_);
    return after_end_;
  }

 private:
  void Saw(const std::string& run_id) {
    std::lock_guard lock(mu_);
    if (ended_.contains(run_id)) ++after_end_;
  }
  mutable std::mutex mu_;
  std::set<std::string> ended_;
  int after_end_ = 0;
};

// An executor whose device, like a worker process, hears of a cancel late:
// it waits until the run is cancelled, then still sends its Started event
// and a batch of samples before it stops.
class LateExecutor final : public Executor {
 public:
  v1::DeviceInfo Info() const override {
    v1::DeviceInfo info;
    info.set_backend("cpu");
    info.set_name("late device");
    info.set_healthy(true);
    return info;
  }
  bool Ready() const override { return true; }
  bool Failed() const override { return false; }
  absl::Status Execute(const AdmittedRun&, const std::string& run_id, RunSink& sink) override {
    executing_.set_value();
    while (!sink.Cancelled()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    v1::RunEvent started;
    started.mutable_started()->set_run_id(run_id);
    sink.Emit(started);
    v1::RunEvent samples;
    samples.mutable_samples()->add_variants()->set_variant("naive");
    sink.Emit(samples);
    return absl::CancelledError("the run was cancelled");
  }
  absl::StatusOr<v1::CompileFacts> Compile(const v1::CompileKernelRequest&) override {
    return absl::UnimplementedError("no compiler");
  }
  void SetStateListener(std::function<void()>) override {}

  std::future<void> Executing() { return executing_.get_future(); }

 private:
  std::promise<void> executing_;
};

// A run cancelled while its device still works: what the device sends after
// the cancel goes to the client's stream no more, and to no observer either
// (the store would find the run ended: "cannot record its Started event").
TEST(Service, ObserversHearNothingOfARunAfterItsEnd) {
  auto executor = std::make_unique<LateExecutor>();
  std::future<void> executing = executor->Executing();
  std::vector<std::unique_ptr<Executor>> executors;
  executors.push_back(std::move(executor));
  Scheduler scheduler(std::move(executors), 8, nullptr);
  EndWatcher watcher;
  KernelBenchService service(scheduler, ServiceOptions{CpuLimits(), DefaultTiming()}, {&watcher});
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
  builder.RegisterService(&service);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  auto stub = v1::KernelBench::NewStub(
      grpc::CreateChannel("127.0.0.1:" + std::to_string(port), grpc::InsecureChannelCredentials()));
  grpc::ClientContext context;
  auto reader = stub->RunVectorAdd(&context, LongVectorAdd());
  ASSERT_EQ(executing.wait_for(std::chrono::seconds(10)), std::future_status::ready);
  context.TryCancel();
  EXPECT_EQ(ReadAll(*reader).status.error_code(), grpc::StatusCode::CANCELLED);
  ASSERT_TRUE(Eventually([&] { return scheduler.running() == 0; }));
  EXPECT_EQ(watcher.ended(), 1u);
  EXPECT_EQ(watcher.after_end(), 0) << "events of the device after the run's end";
  server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
  scheduler.Stop();
}

TEST(Service, AnExpiredDeadlineEndsTheRunWithDeadlineExceeded) {
  auto device = SlowDevice(/*sleep_ms=*/2);
  TestServer server(std::move(device));
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::milliseconds(300));
  const Stream s = ReadAll(*server.Stub()->RunVectorAdd(&context, LongVectorAdd()));
  EXPECT_EQ(s.status.error_code(), grpc::StatusCode::DEADLINE_EXCEEDED);
  EXPECT_TRUE(Eventually([&] { return server.scheduler().running() == 0; }));
}

TEST(Service, AFullQueueAnswersResourceExhausted) {
  v1::Limits limits = CpuLimits();
  limits.set_max_queue(1);
  TestServer server(SlowDevice(2), limits);
  auto stub = server.Stub();
  grpc::ClientContext running_context, waiting_context;
  auto running = stub->RunVectorAdd(&running_context, LongVectorAdd());
  ASSERT_TRUE(ReadUntil(*running, [](const auto& e) { return e.has_started(); }));
  auto waiting = stub->RunVectorAdd(&waiting_context, LongVectorAdd());
  v1::RunEvent event;
  ASSERT_TRUE(waiting->Read(&event));
  const Stream refused = RunVectorAdd(*stub, LongVectorAdd());
  EXPECT_EQ(refused.status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_NE(refused.status.error_message().find("queue is full"), std::string::npos);
  v1::Refusal refusal;
  ASSERT_TRUE(refusal.ParseFromString(refused.status.error_details()));
  EXPECT_EQ(refusal.reason(), v1::Refusal::REASON_QUEUE_FULL);
  running_context.TryCancel();
  waiting_context.TryCancel();
  ReadAll(*running);
  ReadAll(*waiting);
}

TEST(Service, ADrainingServerAnswersUnavailable) {
  TestServer server(MakeCpuDevice());
  server.scheduler().Drain();
  const Stream s = RunVectorAdd(*server.Stub(), SmallVectorAdd());
  EXPECT_EQ(s.status.error_code(), grpc::StatusCode::UNAVAILABLE);
}

TEST(Service, ServerInfoDescribesDevicesOpsLimitsAndLoad) {
  v1::Limits limits = CpuLimits();
  limits.set_max_seq_len(777);
  TestServer server(MakeCpuDevice(), limits);
  grpc::ClientContext context;
  v1::ServerInfo info;
  ASSERT_TRUE(server.Stub()->GetServerInfo(&context, {}, &info).ok());
  EXPECT_EQ(info.backend(), "cpu");
  ASSERT_EQ(info.devices_size(), 1);
  EXPECT_GT(info.devices(0).copy_bandwidth_gbps(), 0);
  EXPECT_TRUE(info.devices(0).healthy());
  ASSERT_EQ(info.ops_size(), 2);
  EXPECT_EQ(info.ops(0).op(), "vector_add");
  EXPECT_EQ(info.ops(1).op(), "attention");
  EXPECT_EQ(info.ops(1).variants(1), "fused");
  EXPECT_EQ(info.limits().max_seq_len(), 777u);
  EXPECT_EQ(info.default_timing().min_samples(), DefaultTiming().min_samples);
  EXPECT_EQ(info.running(), 0u);
  EXPECT_FALSE(info.version().empty());
}

}  // namespace
}  // namespace kbench::server
