// Every resource a Run stream can hold is bounded (in-process service on a
// loopback port): a slow reader still gets every result, a stalled reader
// has its run cancelled, a client's open streams are counted until each RPC
// is done, and a run ends within its stated wall-clock bound.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <iostream>
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

// Two variants on a fake device, sampled until each has `samples` samples:
// at 100,000, megabytes of batches, far more than a small client window.
v1::VectorAddRequest ManySamples(uint32_t samples = 100000) {
  v1::VectorAddRequest request;
  request.set_n(100);
  request.add_variants("naive");
  request.add_variants("vectorized");
  request.mutable_timing()->set_warmup_runs(1);
  request.mutable_timing()->set_min_samples(samples);
  request.mutable_timing()->set_max_samples(samples);
  request.mutable_timing()->set_min_time_ms(60000);
  request.mutable_timing()->set_time_budget_ms(60000);
  return request;
}

// An HTTP/2 frame: 9-byte header, then the payload.
std::string Frame(uint8_t type, uint8_t flags, uint32_t stream, const std::string& payload) {
  std::string frame;
  for (int shift : {16, 8, 0}) frame += char((payload.size() >> shift) & 0xff);
  frame += char(type);
  frame += char(flags);
  for (int shift : {24, 16, 8, 0}) frame += char((stream >> shift) & 0xff);
  return frame + payload;
}

// A client that opens a RunVectorAdd stream granting the server a window of
// 0 bytes and then never reads: no write of the server's can complete. Plain
// HTTP/2 on a socket, since gRPC's own client chooses its window itself.
// Returns the socket; the caller closes it.
int OpenStreamThatNeverReads(int port, const v1::VectorAddRequest& request) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(uint16_t(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) return -1;
  std::string out = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
  out += Frame(0x4, 0, 0, std::string("\x00\x04\x00\x00\x00\x00", 6));  // INITIAL_WINDOW_SIZE 0
  out += Frame(0x4, 0x1, 0, "");  // ACK of the server's settings
  std::string headers;            // HPACK literals without indexing, new names
  for (const auto& [name, value] : std::vector<std::pair<std::string, std::string>>{
           {":method", "POST"},
           {":scheme", "http"},
           {":path", "/kbench.v1.KernelBench/RunVectorAdd"},
           {":authority", "localhost"},
           {"content-type", "application/grpc"},
           {"te", "trailers"}}) {
    headers += '\0';
    headers += char(name.size()) + name;
    headers += char(value.size()) + value;
  }
  out += Frame(0x1, 0x4, 1, headers);  // END_HEADERS
  const std::string message = request.SerializeAsString();
  std::string data(1, '\0');
  for (int shift : {24, 16, 8, 0}) data += char((message.size() >> shift) & 0xff);
  out += Frame(0x0, 0x1, 1, data + message);  // END_STREAM
  if (write(fd, out.data(), out.size()) != ssize_t(out.size())) return -1;
  return fd;
}

std::unique_ptr<worker::Device> InstantDevice() {
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

// What the client reads after its stall: the stream's end says why.
TEST(StreamBounds, AReaderThatStallsPastTheLimitIsToldWhy) {
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
  // 480 KB of times, some seconds of sampling.
  auto reader = stub->RunVectorAdd(&context, ManySamples(30000));
  ASSERT_TRUE(Eventually([&] { return server.scheduler().running() == 0; }, 60s));
  const Stream s = ReadAll(*reader);
  if (s.status.ok() && !s.events.empty() && s.events.back().has_summary())
    GTEST_SKIP() << "gRPC gave this client a window larger than the run's whole output, "
                    "so no write ever waited for it: no stall to find (the test below, "
                    "with a client of its own, always finds one)";
  EXPECT_EQ(s.status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_NE(s.status.error_message().find("max_reader_stall_seconds"), std::string::npos)
      << s.status.error_message();
  for (const v1::RunEvent& e : s.events) EXPECT_FALSE(e.has_summary());
}

// With gRPC's own window (which it grows to megabytes by probing the
// bandwidth) a client that stops reading may never make a write of the
// server's wait, so the stall bound has nothing to time; what matters is
// that such a reader holds nothing past its run: the device is free when
// the run's own bounds end it, and the client's stream slot is free for its
// next call. Either way the stream tells the whole run or why it ended.
TEST(StreamBounds, AReaderThatStopsWithGrpcsOwnWindowHoldsNothingPastItsRun) {
  v1::Limits limits = CpuLimits();
  limits.set_max_reader_stall_seconds(0.5);
  limits.set_max_streams_per_client(1);
  TestServer server(std::make_unique<FakeDevice>(
                        std::vector<std::pair<std::string, testing::FakeVariant>>{
                            {"naive", {2.0}}, {"vectorized", {1.0}}},
                        /*sleep_ms=*/0.01),
                    limits);
  auto stub = server.Stub();  // gRPC's default window and bandwidth probing
  grpc::ClientContext context;
  auto reader = stub->RunVectorAdd(&context, ManySamples(30000));
  ASSERT_TRUE(Eventually([&] { return server.scheduler().running() == 1; }));
  ASSERT_TRUE(Eventually([&] { return server.scheduler().running() == 0; }, 30s));
  // The one stream this client may hold is free again, though nothing of
  // the first has been read.
  EXPECT_TRUE(Eventually(
      [&] {
        grpc::ClientContext next_context;
        v1::VectorAddRequest quick = ManySamples(10);
        quick.mutable_timing()->set_min_time_ms(0);
        quick.mutable_timing()->set_time_budget_ms(1000);
        auto next = stub->RunVectorAdd(&next_context, quick);
        const Stream s = ReadAll(*next);
        return s.status.ok();
      },
      10s))
      << "the client's stream slot stayed held by a stream it stopped reading";
  const Stream s = ReadAll(*reader);
  std::cout << "the unread stream: " << s.events.size() << " events, "
            << (s.status.ok() ? "the whole run" : s.status.error_message()) << std::endl;
  if (s.status.ok()) {
    ASSERT_FALSE(s.events.empty());
    EXPECT_TRUE(s.events.back().has_summary()) << "the stream ended without its summary";
  } else {
    EXPECT_EQ(s.status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
    EXPECT_NE(s.status.error_message().find("max_reader_stall_seconds"), std::string::npos)
        << s.status.error_message();
  }
}

TEST(StreamBounds, AClientThatNeverReadsHasItsRunCancelledAtTheStallLimit) {
  v1::Limits limits = CpuLimits();
  limits.set_max_reader_stall_seconds(0.5);
  // 200,000 samples of at least 10 us: many seconds, unless cancelled.
  TestServer server(std::make_unique<FakeDevice>(
                        std::vector<std::pair<std::string, testing::FakeVariant>>{
                            {"naive", {2.0}}, {"vectorized", {1.0}}},
                        /*sleep_ms=*/0.01),
                    limits);
  const auto start = std::chrono::steady_clock::now();
  const int fd = OpenStreamThatNeverReads(server.port(), ManySamples());
  ASSERT_GE(fd, 0);
  ASSERT_TRUE(Eventually([&] { return server.scheduler().running() == 1; }));
  ASSERT_TRUE(Eventually([&] { return server.scheduler().running() == 0; }, 30s));
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
  close(fd);
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
  v1::Refusal refusal;
  ASSERT_TRUE(refusal.ParseFromString(refused.status.error_details()));
  EXPECT_EQ(refusal.reason(), v1::Refusal::REASON_STREAMS);
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
