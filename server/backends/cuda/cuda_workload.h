// CudaWorkload: what every CUDA workload shares. It owns the output buffer
// (elements of the problem's dtype), the device context and the sample
// timer, and implements the Workload contract (server/device.h) around one
// hook, Enqueue, which a subclass writes for its op: enqueue one run of a
// variant on a stream, without waiting.
//   PoisonOutput: every output byte 0xFF, a NaN in fp32, fp16 and bf16.
//   Run: Enqueue, then wait for the stream.
//   TimeSample: cuda::SampleTimer's cold or hot sample of Enqueue.
//   Output: the output copied to the host and converted to float.
// Every call enters the device first and passes its status to
// DeviceContext::Track, so a sticky CUDA error marks the device unhealthy.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "kernels/dtype.h"
#include "server/backends/cuda/device_context.h"
#include "server/cuda_runtime/device_buffer.h"
#include "server/cuda_runtime/sample_timer.h"
#include "server/device.h"
#include "server/status_macros.h"

namespace kbench::server::cuda_backend {

class CudaWorkload : public Workload {
 public:
  // output holds `elements` values of `dtype`.
  CudaWorkload(std::shared_ptr<DeviceContext> context, kernels::DType dtype,
               int64_t elements, cuda::DeviceBuffer output,
               cuda::SampleTimer timer);

  absl::Status PoisonOutput() final;
  absl::Status Run(int variant) final;
  absl::StatusOr<double> TimeSample(int variant, v1::TimingMode mode) final;
  absl::StatusOr<std::span<const float>> Output() final;
  std::string TimingMethod(v1::TimingMode mode) const final;

 protected:
  // Enqueues one run of `variant` on `stream` without waiting.
  // Not const: it may bind a cuBLAS handle to `stream`.
  virtual absl::Status Enqueue(int variant, cudaStream_t stream) = 0;

  void* output() const { return output_.get(); }

 private:
  cudaStream_t stream() const { return context_->stream.get(); }
  // Enters the device, runs `body`, and tracks its result for sticky errors.
  template <typename F>
  absl::Status Guarded(F body) {
    KBENCH_RETURN_IF_ERROR(context_->Enter());
    return context_->Track(body());
  }

  std::shared_ptr<DeviceContext> context_;
  const kernels::DType dtype_;
  const int64_t elements_;
  cuda::DeviceBuffer output_;
  cuda::SampleTimer timer_;
  std::vector<float> host_;
  std::vector<uint16_t> bits_;  // fp16 / bf16 staging
};

}  // namespace kbench::server::cuda_backend
