// LocalExecutor: runs each run with the runner (runner.h) on a Device of
// this process. The worker process uses it for its one device, and tests
// use it to run the scheduler and the service without a worker. A device
// that turns unhealthy (a sticky CUDA error) makes it Failed for good: only
// a new process can use that device again.
#pragma once

#include <memory>

#include "server/run/executor.h"
#include "server/worker/compile/kernel_compiler.h"
#include "server/worker/device.h"

namespace kbench::server::worker {

class LocalExecutor final : public Executor {
 public:
  // Kernels are compiled with `compile` (its arch, when empty, the
  // device's: worker::compile::ArchOf).
  explicit LocalExecutor(std::unique_ptr<Device> device,
                         worker::compile::CompilerOptions compile = {});

  v1::DeviceInfo Info() const override;
  bool Ready() const override;
  bool Failed() const override;
  absl::Status Execute(const AdmittedRun& run, const std::string& run_id, RunSink& sink) override;
  absl::StatusOr<v1::CompileFacts> Compile(const v1::CompileKernelRequest& request) override;
  void SetStateListener(std::function<void()> changed) override;

  Device& device() { return *device_; }

 private:
  std::unique_ptr<Device> device_;
  std::function<void()> changed_;
  worker::compile::KernelCompiler compiler_;
};

}  // namespace kbench::server::worker
