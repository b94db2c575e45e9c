// CudaWorkload: what every CUDA workload shares. It owns the output buffer
// (elements of the output's dtype: the problem's, but bf16 for attention's
// fp8, kernels/attention/tolerances.h), the device reference (fp32, made once,
// on first use), the device context and the sample timer, and implements
// the Workload contract (server/worker/device.h, proto/ops/device_output.h)
// around two hooks a subclass writes for its op: enqueue one run of a
// variant, and enqueue the op's reference kernel (kernels/cuda/<op>/
// reference_kernel.h), each on a stream without waiting.
//   PoisonOutput: every output byte 0xFF, a NaN in fp32, fp16 and bf16,
//     and the guard after the output (kOutputGuardBytes) too.
//   GuardBytesWritten: the guard's bytes that are no longer 0xFF.
//   InputsChanged: each input's elements whose bits are not those its last
//     FillInputs drew (kernels/cuda/seeded_fill.h), counted on the device
//     (none when FillInputs never drew them, as in tools/bench's attention
//     bench, which makes its inputs itself);
//     when any are, the inputs are drawn again from the same seed, so the
//     next variant's run meets them as drawn and its check blames only it.
//   Run: Enqueue, then wait for the stream.
//   TimeSample: kernels::cuda_runtime::SampleTimer's cold or hot sample of
//     Enqueue; in a run with a learner's kernel, hot samples of every
//     variant are SampleTimer::HotPoisoned, the output poisoned before each
//     launch, so that no launch meets an earlier one's output. Every other
//     call here that runs work on the device tells the timer
//     (SampleTimer::OtherWorkRan), so the next hot sample meets caches warm
//     with its own work, not with a check's or a poison's lines.
//   CompareWithReference: the comparison kernel over every element, its
//     per-block partials merged on the host; the reference is copied to the
//     device for it and zeroed and freed after it.
//   Read: a range of the output or the reference, converted to float.
//   Redraw: the inputs drawn anew on the device (Inputs()), the reference
//     forgotten; first, every learner's module is loaded again, so its
//     `__device__` variables start from their initial values each round
//     (LearnerLaunch::Reload; its hot graph is captured again), and
//     launched once, untimed, on the inputs of the round before: a timed
//     launch is never a module's first (whose one-time costs stay out of
//     the samples), and never meets inputs its module has seen (no cache
//     in its globals can hold their output).
// Every call enters the device first and passes its status to
// DeviceContext::Track, so a sticky CUDA error marks the device unhealthy.
// Learners' kernels (Problem::kernels) are variants after the built-ins:
// LoadKernels loads each (learner_launch.h) with its arguments bound to
// the buffers the op's workload names (KernelBuffers); Run and TimeSample
// launch them as they do a built-in, so they are poisoned, verified and
// timed alike.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "kernels/common/status_macros.h"
#include "kernels/cuda_runtime/device_buffer.h"
#include "kernels/cuda_runtime/sample_timer.h"
#include "kernels/dtype.h"
#include "kernels/seeded_input.h"
#include "server/worker/backends/cuda/device_context.h"
#include "server/worker/backends/cuda/learner_launch.h"
#include "server/worker/device.h"

namespace kbench::server::worker::backends::cuda {

// Bytes after the output that PoisonOutput poisons and GuardBytesWritten
// checks: a kernel writing up to this far past the end of its output is
// caught (further, it meets the allocator's own bounds or another buffer).
inline constexpr size_t kOutputGuardBytes = 4096;

class CudaWorkload : public Workload {
 public:
  // The inputs (Inputs()) hold elements of `input_dtype`; output holds
  // `elements` values of `output_dtype` followed by kOutputGuardBytes
  // (OutputWithGuard allocates it so).
  CudaWorkload(std::shared_ptr<DeviceContext> context, kernels::DType input_dtype,
               kernels::DType output_dtype, int64_t elements,
               kernels::cuda_runtime::DeviceBuffer output,
               kernels::cuda_runtime::SampleTimer timer);

  absl::Status PoisonOutput() final;
  absl::Status Run(int variant) final;
  absl::StatusOr<double> TimeSample(int variant, v1::TimingMode mode) final;
  std::string TimingMethod(v1::TimingMode mode) const final;
  // The timer's SampleTimer::WarmReplays (for tests).
  int WarmReplays() const { return timer_.WarmReplays(); }
  absl::StatusOr<kernels::Comparison> CompareWithReference(
      const kernels::ElementTolerance& tolerance) final;
  absl::Status Read(proto::ops::OutputBuffer buffer, int64_t first, std::span<float> out) final;
  absl::StatusOr<uint64_t> GuardBytesWritten() final;
  absl::StatusOr<std::vector<ChangedInput>> InputsChanged() final;
  // A buffer for `bytes` of output and the guard after them.
  static absl::StatusOr<kernels::cuda_runtime::DeviceBuffer> OutputWithGuard(size_t bytes);
  // A built-in's BuiltinConfig; a learner's kernel's launch facts.
  std::string VariantConfig(int variant) const final;

  absl::Status Redraw(uint64_t seed) final;
  // What learners' kernels printed, from the active PrintfCapture, taken
  // after a learner's variant ran (built-ins print nothing: what they are
  // given stays for the learner's variant that printed it), after what its
  // launch in Redraw printed.
  Printed TakePrinted(int variant, size_t max_bytes) final;
  // Draws every input from `seed` on the device (kernels/cuda/seeded_fill.h)
  // and waits for it: Prepare's fill, and Redraw's.
  absl::Status FillInputs(uint64_t seed);

  // Loads `problem`'s learners' kernels, the variants after its built-ins;
  // INVALID_ARGUMENT for a launch over the device's limits
  // (learner_launch.h). Call once, after the op's Prepare.
  absl::Status LoadKernels(const Problem& problem);

 protected:
  // The buffers a learner's kernel is given (proto/ops/kernel_abi.h
  // KernelArgument::Buffer): the op's inputs in its order, then the
  // output. Empty: this workload runs no learners' kernels.
  virtual std::vector<void*> KernelBuffers() const { return {}; }
  // How built-in `variant` is launched for this problem, when it chooses a
  // configuration by the shape; empty otherwise.
  virtual std::string BuiltinConfig(int /*variant*/) const { return ""; }
  // Enqueues one run of `variant` (a position in Problem::variants) on
  // `stream` without waiting. Not const: it may bind a cuBLAS handle.
  virtual absl::Status Enqueue(int variant, cudaStream_t stream) = 0;
  // Enqueues the op's device reference into `ref` (elements fp32).
  virtual absl::Status EnqueueReference(float* ref, cudaStream_t stream) = 0;
  // One input of the op: the stream of the seed it is drawn from, and its
  // elements of the inputs' dtype.
  struct SeededInput {
    kernels::InputStream stream;
    void* data;
    int64_t elements;
  };
  virtual std::vector<SeededInput> Inputs() const = 0;

  void* output() const { return output_.get(); }

 private:
  cudaStream_t stream() const { return context_->stream.get(); }
  // Enters the device, runs `body` (untimed work), and tracks its result for
  // sticky errors. The timer hears of it: the next hot sample meets caches
  // warm with its own work, not with what `body` left in the L2.
  template <typename F>
  absl::Status Guarded(F body) {
    KBENCH_RETURN_IF_ERROR(context_->Enter());
    timer_.OtherWorkRan();
    return context_->Track(body());
  }
  // Makes the reference on first use, on the device, and keeps it on the
  // host (reference_); call inside Guarded.
  absl::Status EnsureReference();
  // A copy of the reference on the device, for one comparison; ForgetOnDevice
  // after it.
  absl::StatusOr<kernels::cuda_runtime::DeviceBuffer> ReferenceOnDevice();
  // Zeroes `buffer` and waits for the stream, so that nothing of it is left
  // in device memory when it is freed.
  absl::Status ForgetOnDevice(kernels::cuda_runtime::DeviceBuffer& buffer);
  // Enqueues PoisonOutput's fill on `stream` without waiting.
  absl::Status EnqueuePoison(cudaStream_t stream);
  // Enqueue for a built-in, the learner's launch for a kernel.
  absl::Status EnqueueVariant(int variant, cudaStream_t stream);
  // The learner's kernel that `variant` is; null for a built-in.
  LearnerLaunch* LearnerOf(int variant) const;
  // Keeps what learner `learner` printed in its launch in Redraw, for its
  // next TakePrinted (up to kPrintfFifoBytes).
  void KeepPrinted(size_t learner);

  std::shared_ptr<DeviceContext> context_;
  const kernels::DType input_dtype_, output_dtype_;
  const int64_t elements_;
  kernels::cuda_runtime::DeviceBuffer output_;
  // The device reference, on the host: it is on the device only while
  // CompareWithReference runs, and zeroed before it is freed, so that no
  // learner's kernel, which runs between comparisons, can find it there.
  std::vector<float> reference_;  // empty until first needed
  kernels::cuda_runtime::DeviceBuffer partials_;
  // The seed of the last FillInputs; none when FillInputs never drew the
  // inputs (a workload given inputs made elsewhere: InputsChanged then
  // has nothing to count against and reports none).
  std::optional<uint64_t> input_seed_;
  kernels::cuda_runtime::DeviceBuffer changed_count_;  // InputsChanged's counter, on first use
  kernels::cuda_runtime::SampleTimer timer_;
  // Problem::variants.size(): variants from here on are learners' kernels.
  int builtins_ = 0;
  std::vector<std::unique_ptr<LearnerLaunch>> learners_;
  std::vector<Printed> warmup_printed_;  // one per learner, see KeepPrinted
};

}  // namespace kbench::server::worker::backends::cuda
