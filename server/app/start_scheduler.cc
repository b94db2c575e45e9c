#include "server/app/start_scheduler.h"

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "kernels/common/status_macros.h"
#include "server/front/start_workers.h"
#include "server/run/executor.h"
#include "server/run/limits.h"
#include "server/run/timing_resolution.h"

namespace kbench::server {

absl::StatusOr<StartedScheduler> StartScheduler(const ServerFlags& flags,
                                                std::function<void(bool)> health_changed) {
  StartedScheduler started;
  WorkersConfig config = flags.workers;
  KBENCH_ASSIGN_OR_RETURN(config.worker_binary, FindWorkerBinary(flags.worker_binary));
  KBENCH_ASSIGN_OR_RETURN(started.sockets, SocketDirectory::Create());
  absl::StatusOr<StartedWorkers> workers = StartWorkers(config, *started.sockets);
  if (!workers.ok())
    return absl::Status(workers.status().code(),
                        absl::StrCat("cannot start: ", workers.status().message()));
  started.limits = flags.limits.Resolve(workers->first_device);
  absl::StatusOr<TimingPlan> timing_defaults =
      ValidateTiming(v1::TimingOptions(), started.limits, DefaultTiming());
  if (!timing_defaults.ok())
    return absl::Status(timing_defaults.status().code(),
                        absl::StrCat("the limits leave no valid default timing: ",
                                     timing_defaults.status().message()));
  started.timing_defaults = *timing_defaults;
  std::vector<std::unique_ptr<Executor>> executors;
  for (std::unique_ptr<WorkerExecutor>& executor : workers->executors) {
    executor->SetLimits(started.limits);
    started.supervisors.push_back(executor.get());
    executors.push_back(std::move(executor));
  }
  started.scheduler = std::make_unique<Scheduler>(std::move(executors), started.limits.max_queue(),
                                                  std::move(health_changed));
  return started;
}

}  // namespace kbench::server
