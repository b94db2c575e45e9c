// One streaming run RPC: the bridge between the gRPC reactor (which writes
// events to the client, one write in flight at a time) and the scheduler's
// worker (which produces them). Events are queued here and written in order;
// Finish waits until every queued event is written.
//
// Lifetime: RunReactor is owned by gRPC and holds a shared_ptr to RunCall;
// the scheduler holds another while the run waits or runs. After OnDone the
// reactor is gone and RunCall drops further events.
#pragma once

#include <atomic>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "grpcpp/grpcpp.h"
#include "kbench/v1/kbench.grpc.pb.h"
#include "server/runner.h"
#include "server/scheduler.h"

namespace kbench::server {

class RunReactor;

class RunCall final : public Job, public RunSink {
 public:
  // The work of the run on a device; its status ends the RPC.
  using Body = std::function<absl::Status(Device&, const std::string& run_id, RunSink&)>;

  RunCall(std::string run_id, std::string description, Scheduler& scheduler, Body body);

  const std::string& run_id() const { return run_id_; }

  // Job:
  void Queued(uint32_t position, uint32_t running) override;
  void Run(Device& device) override;
  void Abandon(const absl::Status& why) override;

  // RunSink:
  void Emit(v1::RunEvent event) override;
  bool Cancelled() const override { return cancelled_; }

  // Ends the RPC once the queued events are written; the first call wins.
  void Finish(const grpc::Status& status);

  // From the reactor.
  void Attach(RunReactor* reactor);
  void WriteDone(bool ok);
  void ClientCancelled();
  void Detach();

 private:
  // Starts the next write, or the finish once nothing is left; unlocks.
  void Pump(std::unique_lock<std::mutex>& lock);

  const std::string run_id_;
  const std::string description_;
  Scheduler& scheduler_;
  const Body body_;
  std::atomic<bool> cancelled_{false};

  std::mutex mu_;
  RunReactor* reactor_ = nullptr;
  std::deque<v1::RunEvent> pending_;
  v1::RunEvent current_;  // the event being written
  bool write_in_flight_ = false;
  std::optional<grpc::Status> finish_;
  bool finish_sent_ = false;
};

class RunReactor final : public grpc::ServerWriteReactor<v1::RunEvent> {
 public:
  explicit RunReactor(std::shared_ptr<RunCall> call);
  void OnWriteDone(bool ok) override { call_->WriteDone(ok); }
  void OnCancel() override { call_->ClientCancelled(); }
  void OnDone() override;

 private:
  std::shared_ptr<RunCall> call_;
};

}  // namespace kbench::server
