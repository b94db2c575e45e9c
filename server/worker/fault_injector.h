// Fault injection for tests (kbench.v1.Fault), honoured only when the
// worker runs with --enable-fault-injection: a RunSink in front of the
// run's stream that, once the first Sample is forwarded, makes the worker
// fail the way the fault names:
//   FAULT_WORKER_ABORT      abort(): the worker dies on SIGABRT;
//   FAULT_WORKER_HANG       the run thread blocks for good, as in a hung
//                           kernel: no event and no progress follows;
//   FAULT_WORKER_EXIT       the worker exits with status 7 (kExitFault);
//   FAULT_ILLEGAL_ADDRESS   Device::TriggerIllegalAddress(): a real sticky
//                           error on CUDA; the run stops and ends with it.
// Threading: the run thread only, like the sink it wraps.
#pragma once

#include <optional>
#include <string_view>

#include "absl/status/status.h"
#include "kbench/v1/kbench.pb.h"
#include "server/worker/device.h"
#include "server/worker/runner.h"

namespace kbench::server::worker {

class FaultInjector final : public server::RunSink {
 public:
  FaultInjector(server::RunSink& sink, kbench::v1::Fault fault, Device& device);

  void Emit(kbench::v1::RunEvent event) override;
  // Also true once an injected error stopped the run.
  bool Cancelled() const override;
  void StepStarted(server::RunStep step, std::string_view variant) override {
    sink_.StepStarted(step, variant);
  }

  // The run's status: the injected error where one stopped the run, else
  // `run_status`.
  absl::Status Outcome(absl::Status run_status) const;

 private:
  void Inject();

  server::RunSink& sink_;
  const kbench::v1::Fault fault_;
  Device& device_;
  bool injected_ = false;
  std::optional<absl::Status> injected_error_;
};

}  // namespace kbench::server::worker
