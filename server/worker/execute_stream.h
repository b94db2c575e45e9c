// One Execute call of the worker: the bridge between the gRPC reactor (which
// writes WorkerEvents to the front, one write in flight at a time) and the
// worker's run thread (which produces them through the RunSink interface).
// Events are queued and written in order by a StreamWriter
// (server/common/stream_writer.h); End queues the RunEnd and finishes the
// call once everything queued is written.
//
// Progress marks (worker.proto Progress) are queued when the step changes,
// and otherwise only when nothing was queued for kProgressInterval, so a run
// of many short samples does not double its traffic.
//
// Lifetime: the reactor (NewReactor) is owned by gRPC and holds a
// shared_ptr to the stream; the run thread holds another while the run
// waits or runs. After OnDone the stream drops what is emitted.
// Threading: Emit, StepStarted and End come from the run thread; the rest
// from gRPC's threads.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <string_view>

#include "absl/status/status.h"
#include "grpcpp/grpcpp.h"
#include "kbench/worker/v1/worker.grpc.pb.h"
#include "server/common/stream_writer.h"
#include "server/worker/runner.h"

namespace kbench::server::worker {

class ExecuteStream final : public server::RunSink,
                            private server::StreamWriter<kbench::worker::v1::WorkerEvent> {
 public:
  static constexpr std::chrono::milliseconds kProgressInterval{1000};

  // The reactor of `stream`'s RPC, for the service to return.
  static grpc::ServerWriteReactor<kbench::worker::v1::WorkerEvent>* NewReactor(
      std::shared_ptr<ExecuteStream> stream);

  // RunSink:
  void Emit(kbench::v1::RunEvent event) override;
  bool Cancelled() const override { return cancelled_; }
  void StepStarted(server::RunStep step, std::string_view variant) override;

  // Queues the RunEnd of `status` and finishes the call (OK) once the queue
  // is written. Nothing is sent after the first End, nor after the front
  // cancelled.
  void End(const absl::Status& status, bool device_lost);
  // Waits until gRPC is done with the call (OnDone), at most `timeout`;
  // true if it is.
  using StreamWriter::WaitDone;
  // The front asked to stop the run (Worker.Cancel): Cancelled() is true
  // from now on, and the stream goes on to its RunEnd. Any thread.
  void CancelRun() { cancelled_ = true; }

 private:
  // StreamWriter: the front went away or cancelled; the run stops.
  void OnWriteFailed() override;
  void OnCancel() override;

  void Push(kbench::worker::v1::WorkerEvent event);

  std::atomic<bool> cancelled_{false};
  // Run thread only: what decides whether a Progress mark is sent.
  std::optional<server::RunStep> last_step_;
  std::chrono::steady_clock::time_point last_queued_;
};

}  // namespace kbench::server::worker
