// The front's devices: finds the worker binary, starts one worker per
// device (start_workers.h), resolves the limits from the first device and
// the flags (limit_flags.h), checks that they leave a valid default timing,
// and puts the workers behind a Scheduler.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "kbench/v1/kbench.pb.h"
#include "server/app/server_flags.h"
#include "server/front/scheduler.h"
#include "server/front/worker_executor.h"
#include "server/front/worker_paths.h"
#include "server/run/run_plan.h"

namespace kbench::server {

struct StartedScheduler {
  // The workers' sockets; must outlive the scheduler.
  std::unique_ptr<SocketDirectory> sockets;
  v1::Limits limits;
  TimingPlan timing_defaults;
  // Owns the workers' executors.
  std::unique_ptr<Scheduler> scheduler;
  // The scheduler's executors as the workers' supervisors, to stop them.
  std::vector<WorkerExecutor*> supervisors;
};

// health_changed(serving) as Scheduler's. An error's message is the whole
// reason (a worker that cannot start names its device).
absl::StatusOr<StartedScheduler> StartScheduler(const ServerFlags& flags,
                                                std::function<void(bool)> health_changed);

}  // namespace kbench::server
