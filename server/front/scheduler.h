// The queue between admission and the devices. One thread per device
// (Executor) takes the next waiting job whenever its executor is ready and
// runs it; a device runs one job at a time, because timing needs an
// otherwise idle device. With several devices each run goes to whichever is
// free first. The next job is chosen by fair share (fair_queue.h): the
// waiting job of the user who used the least device time in the last hour,
// round-robin among equals, instructors first. Waiting jobs are told their
// position and ETA whenever the queue moves; positions follow the order in
// which the jobs will start.
//
// Readiness: an executor that is not ready (its worker is starting or
// restarting) takes no job; its waiting jobs wait for it or another. Health
// is "some executor is ready"; health_changed reports each change. When
// every executor has failed for good, waiting jobs are abandoned.
//
// Thread safety: every method may be called from any thread. Job callbacks
// run on the scheduler's threads (Queued: the caller of Submit or Withdraw,
// or a device thread; Run and Abandon: a device thread, or the caller of
// Withdraw/Stop).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "server/front/fair_queue.h"
#include "server/run/executor.h"

namespace kbench::server {

class Job {
 public:
  virtual ~Job() = default;
  // Whose share the job uses and what it may cost; called once, by Submit.
  virtual QueueTicket Ticket() const = 0;
  // The job waits with `position` jobs ahead of it and `running` running;
  // it is expected to start in `eta_seconds`.
  virtual void Queued(uint32_t position, uint32_t running, double eta_seconds) = 0;
  // Runs the job to its end on `executor`, on the device's thread. True
  // when it ran to its end (its time then calibrates the ETAs); false when
  // it was cancelled or failed.
  virtual bool Run(Executor& executor) = 0;
  // The job will never run (the server is stopping, or no device is left);
  // called once instead of Run.
  virtual void Abandon(const absl::Status& why) = 0;
};

class Scheduler {
 public:
  // health_changed(serving) is called on each change of "some executor is
  // ready" (may be empty). The executors' state listeners are set here.
  Scheduler(std::vector<std::unique_ptr<Executor>> executors, uint32_t max_queue,
            std::function<void(bool)> health_changed);
  // Stops (see Stop) and joins the threads.
  ~Scheduler();

  // Queues a job and tells it (and every job it goes ahead of) its
  // position. RESOURCE_EXHAUSTED when
  // max_queue jobs already wait; UNAVAILABLE once draining, or while no
  // executor is ready (workers starting or restarting: retry).
  absl::Status Submit(std::shared_ptr<Job> job);
  // Removes a waiting job (its client went away): it gets no further
  // callbacks. A job already running is cancelled on its executor at once
  // (Executor::Cancel); its Run ends once the device is free.
  void Withdraw(const Job* job);
  // Refuse new jobs from now on; running and waiting jobs go on.
  void Drain();
  // Drain, abandon every waiting job, and join the threads after the jobs
  // they are running end.
  void Stop();

  uint32_t running() const;
  uint32_t queued() const;
  // Executors in device order; they outlive the scheduler's users.
  const std::vector<std::unique_ptr<Executor>>& executors() const { return executors_; }
  bool AnyReady() const;

 private:
  void DeviceLoop(Executor& executor);
  // Re-reads the executors' state: health, abandonment; wakes the threads.
  void StateChanged();
  // Tells each waiting job whose position changed (or a new one) its
  // position and ETA; requires mu_.
  void NotifyPositionsLocked();
  // Takes every waiting job out of the queue; requires mu_.
  std::vector<std::shared_ptr<Job>> TakeAllLocked();

  std::vector<std::unique_ptr<Executor>> executors_;
  const uint32_t max_queue_;
  std::function<void(bool)> health_changed_;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  FairQueue queue_;
  // The waiting jobs by their queue id, and the position each was last told.
  std::map<uint64_t, std::shared_ptr<Job>> waiting_;
  std::map<uint64_t, uint32_t> told_;
  // The running jobs and their executors.
  std::map<const Job*, Executor*> running_on_;
  uint32_t running_ = 0;
  bool serving_ = false;
  bool draining_ = false;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace kbench::server
