// The queue between admission and the devices. One worker thread per device
// takes the oldest waiting job and runs it; a device runs one job at a time,
// because timing needs an otherwise idle device. Waiting jobs are told their
// position whenever the queue moves.
//
// Thread safety: every method may be called from any thread. Job callbacks
// run on the scheduler's threads (Queued: the caller of Submit or a worker;
// Run and Abandon: a worker, or the caller of Withdraw/Stop).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "server/device.h"

namespace kbench::server {

class Job {
 public:
  virtual ~Job() = default;
  // The job waits with `position` jobs ahead of it and `running` running.
  virtual void Queued(uint32_t position, uint32_t running) = 0;
  // Runs the job to its end on `device`, on the device's worker thread.
  virtual void Run(Device& device) = 0;
  // The job will never run (the server is stopping); called once instead of
  // Run.
  virtual void Abandon(const absl::Status& why) = 0;
};

class Scheduler {
 public:
  // health_changed(healthy) is called when the count of healthy devices
  // goes to zero (false); may be empty.
  Scheduler(std::vector<std::unique_ptr<Device>> devices, uint32_t max_queue,
            std::function<void(bool)> health_changed);
  // Stops (see Stop) and joins the workers.
  ~Scheduler();

  // Queues a job and tells it its position. RESOURCE_EXHAUSTED when
  // max_queue jobs already wait; UNAVAILABLE once draining or when no device
  // is healthy.
  absl::Status Submit(std::shared_ptr<Job> job);
  // Removes a waiting job (its client went away); no-op if it already
  // started. The job gets no further callbacks.
  void Withdraw(const Job* job);
  // Refuse new jobs from now on; running and waiting jobs go on.
  void Drain();
  // Drain, abandon every waiting job, and join the workers after the jobs
  // they are running end.
  void Stop();

  uint32_t running() const;
  uint32_t queued() const;
  // Devices in index order; they outlive the scheduler's users.
  const std::vector<std::unique_ptr<Device>>& devices() const { return devices_; }
  bool AnyHealthy() const;

 private:
  void WorkerLoop(Device& device);
  // Tells every waiting job its position; requires mu_.
  void NotifyPositionsLocked();

  std::vector<std::unique_ptr<Device>> devices_;
  const uint32_t max_queue_;
  std::function<void(bool)> health_changed_;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::shared_ptr<Job>> waiting_;
  uint32_t running_ = 0;
  uint32_t healthy_workers_ = 0;
  bool draining_ = false;
  bool stopping_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace kbench::server
