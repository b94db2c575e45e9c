// What a run's events are written to: the contract between the runner
// (server/worker/runner.h), which produces them on the device's thread, and
// whoever carries them on (the front's run stream, the worker's execute
// stream, tests). The front includes this without pulling in the device.
#pragma once

#include <string_view>

#include "kbench/v1/kbench.pb.h"

namespace kbench::server {

enum class RunStep { kCompile, kPrepare, kVerify, kWarmup, kSample };

// Receives a run's events; implemented by the RPC's stream (and by tests).
class RunSink {
 public:
  virtual ~RunSink() = default;
  // Called on the worker thread, in event order. Must not block on the
  // client: queue the event and return.
  virtual void Emit(v1::RunEvent event) = 0;
  // True once the client cancelled or its deadline passed.
  virtual bool Cancelled() const = 0;
  // A step of the run starts (on the worker thread, before the work): each
  // learner's kernel's compile (`variant` its name), the problem's
  // preparation, each untimed verification run, each warm-up run, each
  // sample; `variant` is empty for kPrepare. A worker forwards these
  // so its supervisor can tell a slow run from a hung one. Must not block.
  virtual void StepStarted(RunStep /*step*/, std::string_view /*variant*/) {}
};

}  // namespace kbench::server
