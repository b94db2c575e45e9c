// WorkerExecutor: an Executor whose device lives in a kbench-worker process
// (server/worker/) that it starts and supervises, talking to it over a Unix
// socket (proto/kbench/worker/v1/worker.proto). One supervisor thread per
// executor:
//   start    spawns the worker (Subprocess) and calls Describe until it
//            answers; Ready() from then on. A worker that fails its very
//            first start makes the executor Failed: that is a setup error
//            (no such device, no GPU), not a crash to retry.
//   watch    during a run, SIGKILLs a worker that sent nothing (no RunEvent,
//            no Progress) for Limits.max_stall_seconds, and stops the run
//            once its sink is cancelled: at once when told (Cancel), else
//            at its next look. Stopping is Worker.Cancel, which keeps the
//            stream until the worker's RunEnd, so Execute returns when the
//            device is free (the call itself is cancelled only where the
//            worker does not hold the run).
//   restart  a worker that exits (crash, exit, kill, or a sticky device
//            error after which it exits by design) is started again at once;
//            Ready() is false meanwhile. The run in flight ends with
//            INTERNAL naming what happened, e.g. "worker for device 0 exited
//            on signal 9 (SIGKILL) during run run-1a2b; restarted". An exit
//            when kMaxRestarts restarts happened within kRestartWindow makes
//            the executor Failed (logged).
//   stop     Stop() (and the destructor) sends the worker SIGTERM, SIGKILL
//            after kTerminateGrace, and reaps it.
// The worker dies with the thread that spawned it (PR_SET_PDEATHSIG), which
// is the supervisor thread: it outlives every worker it starts.
//
// Threading: Execute is called by one scheduler thread at a time; the rest
// from any thread. The state listener is called from the supervisor thread
// with no lock held, and never once Stop() began.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "absl/status/statusor.h"
#include "grpcpp/grpcpp.h"
#include "kbench/worker/v1/worker.grpc.pb.h"
#include "server/front/subprocess.h"
#include "server/run/executor.h"

namespace kbench::server {

struct WorkerOptions {
  std::string worker_binary;
  // "cpu", "cuda" or "auto"; after the first start, the backend the worker
  // reported (a restarted "auto" worker keeps it).
  std::string backend = "auto";
  uint32_t device_index = 0;
  std::string socket_path;
  bool enable_fault_injection = false;
};

class WorkerExecutor final : public Executor {
 public:
  static constexpr uint32_t kMaxRestarts = 5;
  static constexpr std::chrono::seconds kRestartWindow{60};
  static constexpr std::chrono::seconds kStartTimeout{120};
  static constexpr std::chrono::seconds kTerminateGrace{5};
  // A compile's bound beyond the sandbox's own wall-clock limit.
  static constexpr std::chrono::seconds kCompileTimeout{60};

  // Starts the supervisor, which starts the worker.
  explicit WorkerExecutor(WorkerOptions options);
  ~WorkerExecutor() override;

  // Blocks until the first start is over: the worker's first Describe, or
  // why it could not start (it is then Failed).
  absl::StatusOr<kbench::worker::v1::DescribeResponse> WaitUntilStarted();
  // The limits runs are admitted under: sent with each run and the source
  // of the stall bound. Set before the first Execute.
  void SetLimits(const v1::Limits& limits);
  // Stops the worker (SIGTERM, then SIGKILL) and the supervisor; idempotent.
  void Stop();

  // Executor:
  v1::DeviceInfo Info() const override;
  bool Ready() const override;
  bool Failed() const override;
  absl::Status Execute(const AdmittedRun& run, const std::string& run_id, RunSink& sink) override;
  // Asks the worker (Worker.Compile); UNAVAILABLE while it is not ready.
  absl::StatusOr<v1::CompileFacts> Compile(const v1::CompileKernelRequest& request) override;
  void SetStateListener(std::function<void()> changed) override;
  void Cancel() override;

 private:
  using Clock = std::chrono::steady_clock;

  // What ended a worker, for the run that was in flight.
  struct Ended {
    uint64_t generation = 0;
    std::string what;      // "exited on signal 9 (SIGKILL)", "made no progress for 5 s"
    bool killed = false;   // by the supervisor
    bool stalled = false;  // killed for making no progress (max_stall_seconds)
    bool restarting = false;
  };
  struct ActiveRun {
    std::string run_id;
    RunSink* sink = nullptr;
    grpc::ClientContext* context = nullptr;
    Clock::time_point last_heard;
    bool cancel_requested = false;  // by Cancel()
    bool cancel_sent = false;
  };

  void Supervise();
  // Spawns a worker and waits for its Describe; requires mu_ held via `lock`.
  absl::Status StartWorker(std::unique_lock<std::mutex>& lock);
  // Until the worker exits or Stop: stall and cancellation watch.
  void Watch(std::unique_lock<std::mutex>& lock);
  // Stops the active run through Worker.Cancel, or by cancelling its call
  // where the worker does not hold it; requires mu_ held via `lock`, which
  // is released during the call.
  void StopActiveRun(std::unique_lock<std::mutex>& lock);
  // Records the worker's end; true if it is to be restarted.
  bool RecordEnd(std::unique_lock<std::mutex>& lock);
  // SIGTERM, SIGKILL after kTerminateGrace, reap; requires mu_ not held.
  void Terminate(Subprocess& process);
  void NotifyListener(std::unique_lock<std::mutex>& lock);
  // The error of a run whose worker went away; `learner_kernels`: the run
  // had learners' kernels, so a stall says their kernel was stopped.
  absl::Status WorkerWentAway(uint64_t generation, const std::string& run_id,
                              const std::optional<kbench::worker::v1::RunEnd>& end,
                              bool learner_kernels);
  std::string Name() const;

  WorkerOptions options_;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::function<void()> changed_;
  v1::Limits limits_;
  bool ready_ = false;
  bool failed_ = false;
  bool stopping_ = false;
  std::optional<absl::StatusOr<kbench::worker::v1::DescribeResponse>> first_start_;
  kbench::worker::v1::DescribeResponse described_;
  uint32_t restarts_ = 0;
  std::deque<Clock::time_point> recent_restarts_;

  uint64_t generation_ = 0;  // of the current worker, counted from 1
  std::unique_ptr<Subprocess> process_;
  std::shared_ptr<kbench::worker::v1::Worker::Stub> stub_;
  std::string kill_reason_;  // set when the supervisor killed the current worker
  bool stalled_ = false;     // the kill was for making no progress
  std::optional<Ended> last_ended_;
  std::optional<ActiveRun> active_;

  std::thread supervisor_;
};

}  // namespace kbench::server
