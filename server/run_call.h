// One streaming run RPC: the bridge between the gRPC reactor (which writes
// events to the client, one write in flight at a time) and the scheduler's
// device thread (which produces them). Events are queued here and written in
// order; Finish waits until every queued event is written. The run's
// observers (run_observer.h: the store, the metrics) see the same events.
//
// Lifetime: RunReactor is owned by gRPC and holds a shared_ptr to RunCall;
// the scheduler holds another while the run waits or runs. After OnDone the
// reactor is gone and RunCall stops writing, but observers still see the
// run to its end.
#pragma once

#include <atomic>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "grpcpp/grpcpp.h"
#include "kbench/v1/kbench.grpc.pb.h"
#include "server/auth/principal.h"
#include "server/run_observer.h"
#include "server/run_plan.h"
#include "server/runner.h"
#include "server/scheduler.h"

namespace kbench::server {

class RunReactor;

class RunCall final : public Job, public RunSink {
 public:
  RunCall(std::string run_id, auth::Principal principal, std::string description,
          AdmittedRun run, Scheduler& scheduler, std::vector<RunObserver*> observers);

  const std::string& run_id() const { return run_id_; }
  // Who asked for the run.
  const auth::Principal& principal() const { return principal_; }

  // Job:
  QueueTicket Ticket() const override;
  void Queued(uint32_t position, uint32_t running, double eta_seconds) override;
  bool Run(Executor& executor) override;
  void Abandon(const absl::Status& why) override;

  // RunSink:
  void Emit(v1::RunEvent event) override;
  bool Cancelled() const override { return cancelled_; }

  // Ends the RPC once the queued events are written; the first call wins
  // and is the one observers see.
  void Finish(const absl::Status& status);

  // From the reactor.
  void Attach(RunReactor* reactor);
  void WriteDone(bool ok);
  void ClientCancelled();
  void Detach();

 private:
  // Starts the next write, or the finish once nothing is left; unlocks.
  void Pump(std::unique_lock<std::mutex>& lock);

  const std::string run_id_;
  const auth::Principal principal_;
  const std::string description_;
  const AdmittedRun run_;
  Scheduler& scheduler_;
  const std::vector<RunObserver*> observers_;
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
