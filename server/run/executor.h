// Where a run executes: one device, either in this process (LocalExecutor,
// for the worker itself and for tests) or in a worker process that the
// front supervises (server/front/worker_executor.h). The scheduler holds
// one executor per device and gives each run to a ready one.
//
// Threading: Execute is called by one scheduler thread at a time (one run
// per device); Info, Ready, Failed and Compile from any thread.
#pragma once

#include <functional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "kbench/v1/kbench.pb.h"
#include "server/run/run_plan.h"
#include "server/run/run_sink.h"

namespace kbench::server {

class Executor {
 public:
  virtual ~Executor() = default;

  // The device as last known: backend, name, index, properties, ceilings,
  // and healthy = Ready().
  virtual v1::DeviceInfo Info() const = 0;
  // True while the executor can take a run (its worker is up and its
  // device usable).
  virtual bool Ready() const = 0;
  // True once it never will again (a device that failed for good); the
  // scheduler then gives up on it.
  virtual bool Failed() const = 0;
  // Runs `run` to its end, emitting its events to `sink`; returns OK once
  // the Summary is emitted, CANCELLED when the sink was cancelled, or the
  // error that ended the run (INTERNAL naming what happened to the device
  // or its worker).
  virtual absl::Status Execute(const AdmittedRun& run, const std::string& run_id,
                               RunSink& sink) = 0;
  // The sink of the run in flight was cancelled: stop it now rather than at
  // the executor's next look, so that the device is free within
  // milliseconds (Execute still returns only once the device is). Any
  // thread; a no-op when no run is in flight. The default suits an executor
  // whose runner checks the sink itself (LocalExecutor).
  virtual void Cancel() {}
  // Compiles a learner's kernel that admission passed
  // (kernel_admission.h CheckCompileRequest) for this device's
  // architecture, without running it, and blocks until done: the
  // CompileKernel RPC's answers (proto/kbench/v1/kbench.proto). May be
  // called from any thread, also while a run executes.
  virtual absl::StatusOr<v1::CompileFacts> Compile(const v1::CompileKernelRequest& request) = 0;
  // `changed` is called (from any thread, with none of the executor's locks
  // held) whenever Ready() or Failed() may have changed. Set once, before
  // the first Execute.
  virtual void SetStateListener(std::function<void()> changed) = 0;
};

}  // namespace kbench::server
