// Every resource a Run stream can hold is bounded (in-process service on a
// loopback port): a slow reader still gets every result, a stalled reader
// has its run cancelled, a client's open streams are counted until each RPC
// is done, and a run ends within its stated wall-clock bound.
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <string>
#include <thread>

#include "grpcpp/grpcpp.h"
#include "tests/in_process_server.h"

namespace kbench::server {
namespace {

using namespace std::chrono_literals;

// A client that asks for a window of about 64 KB the application has not
// read, and no growth from bandwidth probing, so that a reader that stops
// reading stops the server's writes. gRPC does not always keep to it (it may
// grant a window of megabytes when memory is plentiful); the tests below
// say so where it matters.
grpc::ChannelArguments SmallWindow() {
  grpc::ChannelArguments args;
  args.SetInt(GRPC_ARG_HTTP2_BDP_PROBE, 0);
  args.SetInt(GRPC_ARG_HTTP2_STREAM_LOOKAHEAD_BYTES, 65536);
  return args;
}

// Two variants on an instant fake device, sampled until each has 100,000
// samples: megabytes of batches, far more than the client's window.
v1::VectorAddRequest ManySamples() {
  v1::VectorAddRequest request;
  request.set_n(100);
  request.add_variants("naive");
  request.add_variants("vectorized");
  request.mutable_timing()->set_warmup_runs(1);
  request.mutable_timing()->set_min_samples(100000);
  request.mutable_timing()->set_max_samples(100000);
  request.mutable_timing()->set_min_time_ms(60000);
  request.mutable_timing()->set_time_budget_ms(60000);
  return request;
}

std::unique_ptr<Device> InstantDevice() {
  return std::make_unique<FakeDevice>(std::vector<std::pair<std::string, testing::FakeVariant>>{
      {"naive", {2.0}}, {"vectorized", {1.0}}});
}

TEST(StreamBounds, ASlowReaderStillGetsEveryResultAndTheSummary) {
  TestServer server(InstantDevice());
  auto stub = server.Stub(SmallWindow());
  grpc::ClientContext context;
  auto reader = stub->RunVectorAdd(&context, ManySamples());
  // The run ends while nothing is read: the server holds what the window
  // did not take.
  ASSERT_TRUE(Eventually([&] { return server.scheduler().running() == 0; }, 60s));
  std::this_thread::sleep_for(200ms);
  const Stream s = ReadAll(*reader);
  ASSERT_TRUE(s.status.ok()) << s.status.error_message();
  std::map<std::string, uint32_t> totals;
  size_t times = 0;
  for (const v1::RunEvent& e : s.events)
    for (const v1::VariantSamples& batch : e.samples().variants()) {
      totals[batch.variant()] = batch.total();
      times += size_t(batch.ms_size());
    }
  // The counts are whole; times may be fewer where unread batches were
  // coalesced (event_buffer_test.cc), never more.
  EXPECT_EQ(totals["naive"], 100000u);
  EXPECT_EQ(totals["vectorized"], 100000u);
  EXPECT_LE(times, 200000u);
  ASSERT_GE(s.events.size(), 3u);
  const auto n = s.events.size();
  ASSERT_TRUE(s.events[n - 3].has_variant_result());
  EXPECT_EQ(s.events[n - 3].variant_result().variant(), "naive");
  EXPECT_EQ(s.events[n - 3].variant_result().stats().samples(), 100000u);
  ASSERT_TRUE(s.events[n - 2].has_variant_result());
  EXPECT_EQ(s.events[n - 2].variant_result().variant(), "vectorized");
  ASSERT_TRUE(s.events[n - 1].has_summary());
  EXPECT_TRUE(s.events[n - 1].summary().all_verified());
}

TEST(StreamBounds, AReaderThatStallsPastTheLimitHasItsRunCancelled) {
  v1::Limits limits = CpuLimits();
  limits.set_max_reader_stall_seconds(0.5);
  // Slow enough that the run is still going when the reader is found stalled.
  TestServer server(std::make_unique<FakeDevice>(
                        std::vector<std::pair<std::string, testing::FakeVariant>>{
                            {"naive", {2.0}}, {"vectorized", {1.0}}},
                        /*sleep_ms=*/0.01),
                    limits);
  auto stub = server.Stub(SmallWindow());
  grpc::ClientContext context;
  auto reader = stub->RunVectorAdd(&context, ManySamples());
  const auto start = std::chrono::steady_clock::now();
  ASSERT_TRUE(Eventually([&] { return server.scheduler().running() == 0; }, 90s));
  const auto took = std::chrono::steady_clock::now() - start;
  const Stream s = ReadAll(*reader);
  if (s.status.ok() && !s.events.empty() && s.events.back().has_summary())
    GTEST_SKIP() << "gRPC gave this client a window larger than the run's whole output, "
                    "so no write ever waited for it: no stall to find";
  // Cancelled, not run to its 200,000 samples (over 10 s on this device).
  EXPECT_LT(took, 8s);
  EXPECT_EQ(s.status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_NE(s.status.error_message().find("max_reader_stall_seconds"), std::string::npos)
      << s.status.error_message();
  for (const v1::RunEvent& e : s.events) EXPECT_FALSE(e.has_summary());
}

TEST(StreamBounds, AClientsOpenStreamsAreCountedUntilEachRpcIsDone) {
  v1::Limits limits = CpuLimits();
  limits.set_max_streams_per_client(2);
  TestServer server(SlowDevice(2), limits);
  auto stub = server.Stub();
  grpc::ClientContext first_context, second_context;
  auto first = stub->RunVectorAdd(&first_context, LongVectorAdd());
  ASSERT_TRUE(ReadUntil(*first, [](const auto& e) { return e.has_started(); }));
  auto second = stub->RunVectorAdd(&second_context, LongVectorAdd());
  ASSERT_TRUE(ReadUntil(*second, [](const auto& e) { return e.has_queued(); }));
  const Stream refused = RunVectorAdd(*stub, LongVectorAdd());
  EXPECT_EQ(refused.status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_NE(refused.status.error_message().find("Limits.max_streams_per_client = 2"),
            std::string::npos)
      << refused.status.error_message();
  // Once one RPC is done, its slot is free again.
  first_context.TryCancel();
  ReadAll(*first);
  EXPECT_TRUE(Eventually([&] {
    grpc::ClientContext context;
    auto third = stub->RunVectorAdd(&context, LongVectorAdd());
    v1::RunEvent event;
    const bool admitted = third->Read(&event);
    context.TryCancel();
    ReadAll(*third);
    return admitted;
  }));
  second_context.TryCancel();
  ReadAll(*second);
}

TEST(StreamBounds, AOneMillisecondBudgetWithAHundredWarmUpsEndsWithinTheStatedBound) {
  v1::Limits limits = CpuLimits();
  limits.set_max_run_overhead_seconds(1);
  // 100 warm-ups of 20 ms would take 2 s, twice the bound.
  TestServer server(SlowDevice(20), limits);
  v1::VectorAddRequest request;
  request.set_n(100);
  request.mutable_timing()->set_warmup_runs(100);
  request.mutable_timing()->set_time_budget_ms(1);
  const auto start = std::chrono::steady_clock::now();
  const Stream s = RunVectorAdd(*server.Stub(), request);
  const double wall_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(s.status.ok()) << s.status.error_message();
  std::optional<v1::Started> started;
  for (const v1::RunEvent& e : s.events)
    if (e.has_started()) started = e.started();
  ASSERT_TRUE(started.has_value());
  EXPECT_EQ(started->deadline_ms(), 2 * 1 + 1000);
  EXPECT_LT(wall_ms, started->deadline_ms());
  ASSERT_TRUE(s.events.back().has_summary());
  EXPECT_LT(s.events.back().summary().wall_ms(), started->deadline_ms());
}

TEST(StreamBounds, ServerInfoReportsTheStreamAndRunBounds) {
  TestServer server(SlowDevice(0));
  grpc::ClientContext context;
  v1::ServerInfo info;
  ASSERT_TRUE(server.Stub()->GetServerInfo(&context, {}, &info).ok());
  EXPECT_EQ(info.limits().max_reader_stall_seconds(), 60);
  EXPECT_EQ(info.limits().max_streams_per_client(), 8u);
  EXPECT_EQ(info.limits().max_run_overhead_seconds(), 300);
}

}  // namespace
}  // namespace kbench::server
