// Unit tests of server/common/stream_writer.h over a real gRPC stream on a
// loopback port (the worker's Execute RPC, served by a writer the test
// drives): order, one write in flight, the finish after the last write,
// the client's cancel, the finish of a stalled stream.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "grpcpp/grpcpp.h"
#include "kbench/worker/v1/worker.grpc.pb.h"
#include "server/common/stream_writer.h"

namespace kbench::server {
namespace {

using namespace std::chrono_literals;
using Event = kbench::worker::v1::WorkerEvent;

// Events taken off the queue to be written: one at a time when the writer
// keeps one write in flight.
std::atomic<int> popped{0};

class CountingQueue {
 public:
  void Push(Event event) { events_.Push(std::move(event)); }
  Event Pop() {
    ++popped;
    return events_.Pop();
  }
  bool empty() const { return events_.empty(); }
  void Clear() { events_.Clear(); }

 private:
  FifoQueue<Event> events_;
};

class TestWriter final : public StreamWriter<Event, CountingQueue> {
 public:
  std::atomic<int> cancels{0};

 private:
  void OnCancel() override {
    ++cancels;
    Drop();
    Finish(absl::CancelledError("cancelled by the client"));
  }
  void OnWriteFailed() override { Finish(absl::CancelledError("the client went away")); }
};

// Serves Execute with the writer the test gives it.
class OneStreamService final : public kbench::worker::v1::Worker::CallbackService {
 public:
  explicit OneStreamService(std::shared_ptr<TestWriter> writer) : writer_(std::move(writer)) {}

  grpc::ServerWriteReactor<Event>* Execute(grpc::CallbackServerContext*,
                                           const kbench::worker::v1::ExecuteRequest*) override {
    grpc::ServerWriteReactor<Event>* reactor = TestWriter::NewReactor(writer_);
    attached_.set_value();
    return reactor;
  }
  // Waits until the RPC's reactor exists (writes before it are dropped).
  void WaitAttached() { attached_.get_future().wait(); }

 private:
  const std::shared_ptr<TestWriter> writer_;
  std::promise<void> attached_;
};

Event Numbered(int i, size_t padding = 0) {
  Event event;
  event.mutable_progress()->set_variant(std::to_string(i) + std::string(padding, ' '));
  return event;
}

int NumberOf(const Event& event) { return std::stoi(event.progress().variant()); }

// An event far larger than the client's window: its write cannot complete
// until the client reads.
constexpr size_t kLarge = 8 << 20;

class StreamWriterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    popped = 0;
    writer_ = std::make_shared<TestWriter>();
    service_ = std::make_unique<OneStreamService>(writer_);
    grpc::ServerBuilder builder;
    int port = 0;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
    builder.RegisterService(service_.get());
    server_ = builder.BuildAndStart();
    ASSERT_NE(port, 0);
    grpc::ChannelArguments args;  // a small window, and room for kLarge events
    args.SetInt(GRPC_ARG_HTTP2_BDP_PROBE, 0);
    args.SetInt(GRPC_ARG_HTTP2_STREAM_LOOKAHEAD_BYTES, 65536);
    args.SetMaxReceiveMessageSize(-1);
    stub_ = kbench::worker::v1::Worker::NewStub(grpc::CreateCustomChannel(
        "127.0.0.1:" + std::to_string(port), grpc::InsecureChannelCredentials(), args));
  }
  void TearDown() override { server_->Shutdown(std::chrono::system_clock::now() + 5s); }

  // Starts the RPC and waits until the writer is attached to it.
  std::unique_ptr<grpc::ClientReader<Event>> Open(grpc::ClientContext& context) {
    auto reader = stub_->Execute(&context, kbench::worker::v1::ExecuteRequest());
    service_->WaitAttached();
    return reader;
  }

  // Waits (at most 10 s) until a write is in flight.
  bool WaitForWriteInFlight() {
    for (auto end = std::chrono::steady_clock::now() + 10s; std::chrono::steady_clock::now() < end;
         std::this_thread::sleep_for(10ms))
      if (writer_->state().write_started) return true;
    return false;
  }

  std::shared_ptr<TestWriter> writer_;
  std::unique_ptr<OneStreamService> service_;
  std::unique_ptr<grpc::Server> server_;
  std::unique_ptr<kbench::worker::v1::Worker::Stub> stub_;
};

TEST_F(StreamWriterTest, WritesEveryEventInOrderThenTheFirstFinishOnly) {
  grpc::ClientContext context;
  auto reader = Open(context);
  for (int i = 0; i < 200; ++i) ASSERT_TRUE(writer_->Write(Numbered(i)));
  EXPECT_TRUE(writer_->Finish(absl::NotFoundError("the end")));
  EXPECT_FALSE(writer_->Write(Numbered(200)));
  EXPECT_FALSE(writer_->Finish(absl::OkStatus()));

  std::vector<int> got;
  for (Event event; reader->Read(&event);) got.push_back(NumberOf(event));
  const grpc::Status status = reader->Finish();
  ASSERT_EQ(got.size(), 200u);
  for (int i = 0; i < 200; ++i) EXPECT_EQ(got[i], i);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(status.error_message(), "the end");
  EXPECT_TRUE(writer_->WaitDone(5s));
  EXPECT_EQ(writer_->state().ended->code(), absl::StatusCode::kNotFound);
}

TEST_F(StreamWriterTest, KeepsOneWriteInFlightWhileTheClientDoesNotRead) {
  grpc::ClientContext context;
  auto reader = Open(context);
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(writer_->Write(Numbered(i, kLarge)));
  ASSERT_TRUE(WaitForWriteInFlight());
  std::this_thread::sleep_for(300ms);
  EXPECT_EQ(popped, 1) << "the others wait in the queue until the first is written";

  writer_->Finish(absl::OkStatus());
  std::vector<int> got;
  for (Event event; reader->Read(&event);) got.push_back(NumberOf(event));
  EXPECT_EQ(got, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_TRUE(reader->Finish().ok());
  EXPECT_EQ(popped, 4);
}

TEST_F(StreamWriterTest, TheFinishFollowsTheLastQueuedWriteAndWhatMustPrecedeIt) {
  grpc::ClientContext context;
  auto reader = Open(context);
  // Queued while the client does not read; it reads once the finish is
  // decided, so the last write completes while before_send still runs.
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(writer_->Write(Numbered(i, 1 << 20)));
  std::promise<void> finishing;
  std::atomic<bool> observed{false};
  std::thread client([&] {
    finishing.get_future().wait();
    std::vector<int> got;
    for (Event event; reader->Read(&event);) got.push_back(NumberOf(event));
    const grpc::Status status = reader->Finish();
    EXPECT_TRUE(observed) << "the client saw the end before before_send had returned";
    EXPECT_EQ(got, (std::vector<int>{0, 1, 2}));
    EXPECT_EQ(status.error_code(), grpc::StatusCode::ABORTED);
  });
  EXPECT_TRUE(writer_->Finish(absl::AbortedError("stopped"), [&] {
    finishing.set_value();
    std::this_thread::sleep_for(1s);
    observed = true;
  }));
  client.join();
}

TEST_F(StreamWriterTest, AClientCancelReachesOnCancelAndEndsTheRpc) {
  grpc::ClientContext context;
  auto reader = Open(context);
  ASSERT_TRUE(writer_->Write(Numbered(0)));
  context.TryCancel();
  ASSERT_TRUE(writer_->WaitDone(10s));
  EXPECT_EQ(writer_->cancels, 1);
  EXPECT_TRUE(writer_->state().closed);
  EXPECT_FALSE(writer_->Write(Numbered(1)));
  EXPECT_EQ(reader->Finish().error_code(), grpc::StatusCode::CANCELLED);
}

TEST_F(StreamWriterTest, FinishNowEndsAStalledStreamDroppingWhatWaits) {
  grpc::ClientContext context;
  auto reader = Open(context);
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(writer_->Write(Numbered(i, kLarge)));
  ASSERT_TRUE(WaitForWriteInFlight());
  EXPECT_TRUE(writer_->FinishNow(absl::ResourceExhaustedError("stalled")));
  EXPECT_FALSE(writer_->FinishNow(absl::ResourceExhaustedError("again")));
  EXPECT_TRUE(writer_->state().closed);

  int got = 0;
  for (Event event; reader->Read(&event);) ++got;
  const grpc::Status status = reader->Finish();
  EXPECT_LE(got, 1) << "only the write in flight may still arrive";
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_EQ(status.error_message(), "stalled");
  EXPECT_TRUE(writer_->WaitDone(5s));
}

}  // namespace
}  // namespace kbench::server
