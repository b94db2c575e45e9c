// Where the front's admitted runs wait for a device: the scheduler of this
// server's own devices (LocalQueue), or the queue that the servers sharing
// a store run from (shared_queue.h, --shared-queue).
#pragma once

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "kbench/v1/kbench.pb.h"
#include "server/front/scheduler.h"

namespace kbench::server {

// A run the front admitted, as a queue takes it: a Job that can name
// itself and say what to run (for a queue that another server may run it
// from).
class QueuedRun : public Job {
 public:
  virtual const std::string& run_id() const = 0;
  // The admitted request, resolved (validation.h Resolved).
  virtual v1::RunRequest Request() const = 0;
};

// Runs executing and waiting, as ServerInfo reports them.
struct RunCounts {
  uint32_t running = 0;
  uint32_t queued = 0;
};

class RunQueue {
 public:
  virtual ~RunQueue() = default;
  // Queues `run`; its callbacks (Queued, then Run or Abandon) come as
  // Scheduler's. Errors as Scheduler::Submit's.
  virtual absl::Status Submit(std::shared_ptr<QueuedRun> run) = 0;
  // As Scheduler::Withdraw: a waiting run gets no further callbacks; a
  // running one is cancelled and its Run ends once its device is free.
  virtual void Withdraw(const Job* job) = 0;
  // The runs executing and waiting where this queue's runs run: this
  // server's devices, or the cluster's.
  virtual RunCounts Counts() const = 0;
};

// The runs wait for this server's devices.
class LocalQueue final : public RunQueue {
 public:
  explicit LocalQueue(Scheduler& scheduler) : scheduler_(scheduler) {}
  absl::Status Submit(std::shared_ptr<QueuedRun> run) override {
    return scheduler_.Submit(std::move(run));
  }
  void Withdraw(const Job* job) override { scheduler_.Withdraw(job); }
  RunCounts Counts() const override { return {scheduler_.running(), scheduler_.queued()}; }

 private:
  Scheduler& scheduler_;
};

}  // namespace kbench::server
