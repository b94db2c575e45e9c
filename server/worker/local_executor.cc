#include "server/worker/local_executor.h"

#include <utility>

#include "kernels/common/status_macros.h"
#include "server/worker/learner_kernels.h"
#include "server/worker/runner.h"

namespace kbench::server::worker {

namespace {

worker::compile::CompilerOptions WithArch(worker::compile::CompilerOptions options,
                                          const Device& device) {
  if (options.arch.empty()) options.arch = worker::compile::ArchOf(device.Info());
  return options;
}

}  // namespace

LocalExecutor::LocalExecutor(std::unique_ptr<Device> device,
                             worker::compile::CompilerOptions compile)
    : device_(std::move(device)), compiler_(WithArch(std::move(compile), *device_)) {}

v1::DeviceInfo LocalExecutor::Info() const {
  v1::DeviceInfo info = device_->Info();
  info.set_healthy(device_->Healthy());
  return info;
}

bool LocalExecutor::Ready() const { return device_->Healthy(); }

bool LocalExecutor::Failed() const { return !device_->Healthy(); }

absl::Status LocalExecutor::Execute(const AdmittedRun& run, const std::string& run_id,
                                    RunSink& sink) {
  const bool was_healthy = device_->Healthy();
  // Learners' kernels are compiled (or found in the cache) before the run
  // starts, and run as variants after the built-ins.
  AdmittedRun with_kernels;
  const AdmittedRun* to_run = &run;
  if (!run.problem.request.kernels().empty() && run.problem.kernels.empty()) {
    with_kernels = run;
    KBENCH_ASSIGN_OR_RETURN(
        with_kernels.problem.kernels,
        CompileLearnerKernels(run.problem, compiler_, [&sink](std::string_view name) {
          sink.StepStarted(RunStep::kCompile, name);
        }));
    to_run = &with_kernels;
  }
  absl::Status status = RunJob(*device_, *to_run, run_id, sink);
  if (was_healthy && !device_->Healthy() && changed_) changed_();
  return status;
}

absl::StatusOr<v1::CompileFacts> LocalExecutor::Compile(const v1::CompileKernelRequest& request) {
  return compiler_.Compile(request);
}

void LocalExecutor::SetStateListener(std::function<void()> changed) {
  changed_ = std::move(changed);
}

}  // namespace kbench::server::worker
