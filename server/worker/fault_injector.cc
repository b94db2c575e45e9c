#include "server/worker/fault_injector.h"

#include <chrono>
#include <cstdlib>
#include <thread>
#include <utility>

#include "server/common/log.h"
#include "server/run/exit_codes.h"

namespace kbench::server::worker {

FaultInjector::FaultInjector(server::RunSink& sink, kbench::v1::Fault fault, Device& device)
    : sink_(sink), fault_(fault), device_(device) {}

void FaultInjector::Emit(kbench::v1::RunEvent event) {
  const bool sample = event.has_samples();
  sink_.Emit(std::move(event));
  if (sample && !injected_ && fault_ != kbench::v1::FAULT_NONE) Inject();
}

bool FaultInjector::Cancelled() const { return injected_error_.has_value() || sink_.Cancelled(); }

absl::Status FaultInjector::Outcome(absl::Status run_status) const {
  return injected_error_ ? *injected_error_ : run_status;
}

void FaultInjector::Inject() {
  injected_ = true;
  server::Log("fault injection: ", kbench::v1::Fault_Name(fault_),
              " after the first batch of samples");
  switch (fault_) {
    case kbench::v1::FAULT_WORKER_ABORT:
      std::abort();
    case kbench::v1::FAULT_WORKER_HANG:
      while (true) std::this_thread::sleep_for(std::chrono::hours(1));
    case kbench::v1::FAULT_WORKER_EXIT:
      std::_Exit(kExitFault);
    case kbench::v1::FAULT_ILLEGAL_ADDRESS: {
      absl::Status error = device_.TriggerIllegalAddress();
      injected_error_ = error.ok()
                            ? absl::InternalError("fault: the illegal address went unnoticed")
                            : std::move(error);
      return;
    }
    default:
      return;
  }
}

}  // namespace kbench::server::worker
