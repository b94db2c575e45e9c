// The backend contract: a Device runs problems, a Workload is one problem's
// buffers on one device. The runner (runner.h) drives both; it is the only
// caller. Backends live side by side in server/worker/backends/ (cpu, cuda); each
// implements every op's variants behind Prepare.
//
// Threading: a Device and its Workloads are used by one thread at a time
// (one run per device: timing needs an otherwise idle device), except
// Info() and Healthy(), which any thread may call.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "kbench/v1/kbench.pb.h"
#include "proto/ops/device_output.h"
#include "server/run/run_plan.h"

namespace kbench::server::worker {

// What the clocks did during one timed sample; available = false where they
// cannot be read (the CPU backend).
struct ClockReading {
  bool available = false;
  // The lowest and highest SM clock seen during the sample.
  double sm_clock_mhz_min = 0;
  double sm_clock_mhz_max = 0;
  // A throttle reason other than idle (power cap, thermal or hardware
  // slowdown) was active at some point during the sample.
  bool throttled = false;
};

// One problem resident on a device: inputs made from the seed
// (kernels/seeded_input.h), an output buffer, the op's device reference
// (proto::ops::DeviceOutput: the verifier compares every element with it, on the
// device, and reads chosen rows of both back), and whatever scratch the
// variants need. Destroying it frees everything.
class Workload : public proto::ops::DeviceOutput {
 public:
  virtual ~Workload() = default;

  // Fills the output with NaN, so an element no kernel writes fails
  // verification.
  virtual absl::Status PoisonOutput() = 0;
  // `variant` is a position in Problem::variants.
  // Runs variant `variant` once, untimed, and waits for it to complete.
  virtual absl::Status Run(int variant) = 0;
  // Runs variant `variant` and returns one sample's time in milliseconds,
  // taken as TimingMethod(mode) says (in HOT mode possibly the mean of
  // several back-to-back launches, all of which write the output: a check
  // after the sample sees the last one's).
  virtual absl::StatusOr<double> TimeSample(int variant, v1::TimingMode mode) = 0;
  // How TimeSample measures in `mode`, in words for the learner.
  virtual std::string TimingMethod(v1::TimingMode mode) const = 0;
  // How variant `variant` is launched for this problem, when it chooses a
  // configuration by the shape (VariantResult.config); empty otherwise.
  virtual std::string VariantConfig(int /*variant*/) const { return ""; }
  // Draws the inputs anew from `seed` (the streams of kernels/seeded_input.h
  // that Prepare drew from the problem's seed) and forgets the device
  // reference: the next comparison makes it for the new inputs. A backend
  // that runs learners' kernels loads their modules again, so that their
  // `__device__` variables start each round afresh. The runner
  // redraws before every timed round of a run with a learner's kernel
  // (runner.h).
  virtual absl::Status Redraw(uint64_t seed) = 0;
  // What variant `variant` printed (device printf) in the runs since the
  // last call, up to `max_bytes` of it, and how many bytes it printed in
  // all. Empty where nothing can print (built-ins, the CPU backend) or
  // nothing is captured (the CUDA backend's PrintfCapture: worker processes).
  struct Printed {
    std::string text;
    uint64_t bytes = 0;
  };
  virtual Printed TakePrinted(int /*variant*/, size_t /*max_bytes*/) { return {}; }
};

// Whether a run may go on: OK, or the status that ends it (CANCELLED once
// its client cancelled, DEADLINE_EXCEEDED past its wall-clock bound). Long
// work asks between chunks of about a millisecond and stops with that
// status, so that a cancelled run frees its device at once.
using GoOn = std::function<absl::Status()>;

class Device {
 public:
  virtual ~Device() = default;

  // Backend, name, index, properties (memory, SMs) and the ceilings
  // measured at start-up. What the device runs follows from its backend
  // (proto::ops::OffersOf) and its limit defaults from these properties
  // (limits.h).
  virtual v1::DeviceInfo Info() const = 0;
  // False once the device hit an error that leaves it unusable (a sticky
  // CUDA error): the worker stops taking runs and health reports it.
  virtual bool Healthy() const = 0;

  // Allocate and fill a problem's buffers; the workload runs the problem's
  // variants by their position in problem.variants. Fails with
  // RESOURCE_EXHAUSTED when the device lacks the memory, INVALID_ARGUMENT
  // for an op or combination it cannot run (admission refuses those first).
  // Host-side work (the CPU backend's inputs) asks `go_on` between chunks
  // and returns its status once it is not OK.
  virtual absl::StatusOr<std::unique_ptr<Workload>> Prepare(const Problem& problem,
                                                            const GoOn& go_on) = 0;

  // Clocks during sampling: the runner calls StartClockWatch() right
  // before each Workload::TimeSample and StopClockWatch() right after it
  // returns (the sample's work complete), never nested. StopClockWatch
  // reports what the clocks did between the two calls: at least one reading
  // taken while the sample ran (the CUDA backend polls NVML on a side
  // thread, and differences its throttle counters around the sample).
  virtual void StartClockWatch() = 0;
  virtual ClockReading StopClockWatch() = 0;
  // Fault injection (tests only, kbench-worker --enable-fault-injection):
  // provokes a real sticky error, as a kernel writing to an illegal address
  // does, and returns it; Healthy() is false afterwards. Only the CUDA
  // backend can.
  virtual absl::Status TriggerIllegalAddress() {
    return absl::UnimplementedError("fault: only the CUDA backend can trigger an illegal address");
  }
};

}  // namespace kbench::server::worker
