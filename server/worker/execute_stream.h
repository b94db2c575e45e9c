// One Execute call of the worker: the bridge between the gRPC reactor (which
// writes WorkerEvents to the front, one write in flight at a time) and the
// worker's run thread (which produces them through the RunSink interface).
// Events are queued here and written in order; End queues the RunEnd and
// finishes the call once everything queued is written.
//
// Progress marks (worker.proto Progress) are queued when the step changes,
// and otherwise only when nothing was queued for kProgressInterval, so a run
// of many short samples does not double its traffic.
//
// Lifetime: ExecuteReactor is owned by gRPC and holds a shared_ptr to the
// stream; the run thread holds another while the run waits or runs. After
// OnDone the reactor is gone and the stream drops what is emitted.
// Threading: Emit, StepStarted and End come from the run thread; the rest
// from gRPC's threads.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string_view>

#include "absl/status/status.h"
#include "grpcpp/grpcpp.h"
#include "kbench/worker/v1/worker.grpc.pb.h"
#include "server/worker/runner.h"

namespace kbench::worker {

class ExecuteReactor;

class ExecuteStream final : public server::RunSink {
 public:
  static constexpr std::chrono::milliseconds kProgressInterval{1000};

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
  bool WaitDone(std::chrono::milliseconds timeout);
  // The front asked to stop the run (Worker.Cancel): Cancelled() is true
  // from now on, and the stream goes on to its RunEnd. Any thread.
  void CancelRun() { cancelled_ = true; }

  // From the reactor.
  void Attach(ExecuteReactor* reactor);
  void WriteDone(bool ok);
  void FrontCancelled();
  void Detach();

 private:
  void Push(v1::WorkerEvent event);
  // Starts the next write, or the finish once nothing is left; unlocks.
  void Pump(std::unique_lock<std::mutex>& lock);

  std::atomic<bool> cancelled_{false};
  // Run thread only: what decides whether a Progress mark is sent.
  std::optional<server::RunStep> last_step_;
  std::chrono::steady_clock::time_point last_queued_;

  std::mutex mu_;
  std::condition_variable done_cv_;
  ExecuteReactor* reactor_ = nullptr;
  std::deque<v1::WorkerEvent> pending_;
  v1::WorkerEvent current_;  // the event being written
  bool write_in_flight_ = false;
  std::optional<grpc::Status> finish_;
  bool finish_sent_ = false;
  bool done_ = false;
};

class ExecuteReactor final : public grpc::ServerWriteReactor<v1::WorkerEvent> {
 public:
  explicit ExecuteReactor(std::shared_ptr<ExecuteStream> stream);
  void OnWriteDone(bool ok) override { stream_->WriteDone(ok); }
  void OnCancel() override { stream_->FrontCancelled(); }
  void OnDone() override;

 private:
  std::shared_ptr<ExecuteStream> stream_;
};

}  // namespace kbench::worker
