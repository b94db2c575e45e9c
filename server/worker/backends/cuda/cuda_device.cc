#include "server/worker/backends/cuda/cuda_device.h"

#include <cuda_runtime_api.h>

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "kernels/common/status_macros.h"
#include "kernels/cuda/fault_injection.h"
#include "kernels/cuda_runtime/cuda_status.h"
#include "kernels/cuda_runtime/nvml_clock.h"
#include "proto/ops/backends.h"
#include "server/worker/backends/cuda/ceilings.h"
#include "server/worker/backends/cuda/cuda_workloads.h"
#include "server/worker/backends/cuda/device_context.h"
#include "server/worker/backends/cuda/gpu_diagnosis.h"
#include "server/worker/backends/cuda/printf_capture.h"

namespace kbench::server::worker::backends::cuda {
namespace {

using worker::backends::cuda::DeviceContext;

// Watches the SM clock and throttle reasons while a sample runs: a side
// thread polls NVML every kPollInterval between Start and Stop, and both
// take a reading of their own, so even a sample shorter than the interval
// has one taken right after it ran.
class ClockWatcher {
 public:
  explicit ClockWatcher(const kernels::cuda_runtime::NvmlClock& clock) : clock_(clock) {
    if (clock_.unavailable_reason().empty()) thread_ = std::thread([this] { Loop(); });
  }
  ~ClockWatcher() {
    {
      std::lock_guard lock(mu_);
      stopping_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
  }

  void Start() {
    std::lock_guard lock(mu_);
    reading_ = ClockReading();
    AddLocked();
    watching_ = true;
    cv_.notify_all();
  }
  ClockReading Stop() {
    std::lock_guard lock(mu_);
    AddLocked();
    watching_ = false;
    return reading_;
  }

 private:
  static constexpr std::chrono::microseconds kPollInterval{500};

  void AddLocked() {
    const std::optional<kernels::cuda_runtime::SmClock> clock = clock_.Read();
    if (!clock) return;
    if (!reading_.available || clock->mhz < reading_.sm_clock_mhz_min)
      reading_.sm_clock_mhz_min = clock->mhz;
    if (!reading_.available || clock->mhz > reading_.sm_clock_mhz_max)
      reading_.sm_clock_mhz_max = clock->mhz;
    reading_.available = true;
    reading_.throttled = reading_.throttled || clock->throttled;
  }
  void Loop() {
    std::unique_lock lock(mu_);
    while (!stopping_) {
      if (!watching_) {
        cv_.wait(lock, [&] { return stopping_ || watching_; });
        continue;
      }
      AddLocked();
      cv_.wait_for(lock, kPollInterval, [&] { return stopping_; });
    }
  }

  const kernels::cuda_runtime::NvmlClock& clock_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool watching_ = false;
  bool stopping_ = false;
  ClockReading reading_;
  std::thread thread_;
};

class CudaDevice final : public Device {
 public:
  CudaDevice(std::shared_ptr<DeviceContext> context, v1::DeviceInfo info,
             std::unique_ptr<kernels::cuda_runtime::NvmlClock> clock)
      : context_(std::move(context)),
        info_(std::move(info)),
        clock_(std::move(clock)),
        watcher_(*clock_) {}

  v1::DeviceInfo Info() const override {
    v1::DeviceInfo info = info_;
    info.set_healthy(Healthy());
    return info;
  }

  bool Healthy() const override { return context_->health.Healthy(); }

  // The inputs are made on the device, a kernel each, in milliseconds even
  // at the largest sizes: no host-side work to interrupt.
  absl::StatusOr<std::unique_ptr<Workload>> Prepare(const Problem& problem,
                                                    const GoOn& /*go_on*/) override {
    KBENCH_RETURN_IF_ERROR(context_->Enter());
    return context_->Track(worker::backends::cuda::PrepareCudaWorkload(context_, problem));
  }

  void StartClockWatch() override { watcher_.Start(); }
  ClockReading StopClockWatch() override { return watcher_.Stop(); }

  absl::Status TriggerIllegalAddress() override {
    KBENCH_RETURN_IF_ERROR(context_->Enter());
    return context_->Track([&]() -> absl::Status {
      KBENCH_CUDA_RETURN_IF_ERROR(kernels::cuda::LaunchIllegalAddressWrite(context_->stream.get()));
      return context_->stream.Synchronize();
    }());
  }

 private:
  std::shared_ptr<DeviceContext> context_;
  const v1::DeviceInfo info_;
  const std::unique_ptr<kernels::cuda_runtime::NvmlClock> clock_;
  ClockWatcher watcher_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<Device>> OpenCudaDevice(int ordinal) {
  KBENCH_CUDA_RETURN_IF_ERROR(cudaSetDevice(ordinal));
  // The bound on what kernels print between synchronizations
  // (printf_capture.h). CUDA refuses to change it once a kernel that prints
  // has run in this process, so it is set only when it differs: a second
  // open of the device in one process (the GPU tests) finds it set already.
  size_t printf_fifo = 0;
  KBENCH_CUDA_RETURN_IF_ERROR(cudaDeviceGetLimit(&printf_fifo, cudaLimitPrintfFifoSize));
  if (printf_fifo != worker::backends::cuda::kPrintfFifoBytes) {
    KBENCH_CUDA_RETURN_IF_ERROR(
        cudaDeviceSetLimit(cudaLimitPrintfFifoSize, worker::backends::cuda::kPrintfFifoBytes));
  }
  cudaDeviceProp props{};
  KBENCH_CUDA_RETURN_IF_ERROR(cudaGetDeviceProperties(&props, ordinal));
  char pci_bus_id[32] = {};
  KBENCH_CUDA_RETURN_IF_ERROR(cudaDeviceGetPCIBusId(pci_bus_id, sizeof(pci_bus_id), ordinal));

  KBENCH_ASSIGN_OR_RETURN(kernels::cuda_runtime::Stream owned_stream,
                          kernels::cuda_runtime::Stream::Create());
  KBENCH_ASSIGN_OR_RETURN(kernels::cuda_runtime::L2Flusher flusher,
                          kernels::cuda_runtime::L2Flusher::Create(size_t(props.l2CacheSize)));
  auto context =
      std::make_shared<DeviceContext>(ordinal, std::move(owned_stream), std::move(flusher));

  const cudaStream_t stream = context->stream.get();
  const int sms = props.multiProcessorCount;
  KBENCH_ASSIGN_OR_RETURN(const double copy_gbps,
                          worker::backends::cuda::MeasureCopyBandwidthGbps(stream, sms));
  KBENCH_ASSIGN_OR_RETURN(
      const double l2_copy_gbps,
      worker::backends::cuda::MeasureL2CopyBandwidthGbps(stream, size_t(props.l2CacheSize), sms));
  KBENCH_ASSIGN_OR_RETURN(const double fp16_tflops, worker::backends::cuda::MeasureMatmulTflops(
                                                        stream, kernels::DType::kFp16));
  KBENCH_ASSIGN_OR_RETURN(const double bf16_tflops, worker::backends::cuda::MeasureMatmulTflops(
                                                        stream, kernels::DType::kBf16));

  auto clock = std::make_unique<kernels::cuda_runtime::NvmlClock>(
      kernels::cuda_runtime::NvmlClock::Open(pci_bus_id));
  double max_sm_clock_mhz = clock->MaxSmClockMhz().value_or(0);
  if (max_sm_clock_mhz == 0) {
    int khz = 0;
    KBENCH_CUDA_RETURN_IF_ERROR(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, ordinal));
    max_sm_clock_mhz = khz / 1000.0;
  }

  v1::DeviceInfo info;
  info.set_backend(std::string(proto::ops::kCudaBackend));
  info.set_name(props.name);
  info.set_index(uint32_t(ordinal));
  info.set_sm_count(uint32_t(props.multiProcessorCount));
  info.set_l2_bytes(uint64_t(props.l2CacheSize));
  info.set_memory_bytes(uint64_t(props.totalGlobalMem));
  info.set_max_sm_clock_mhz(max_sm_clock_mhz);
  info.set_compute_capability(absl::StrCat(props.major, ".", props.minor));
  info.set_copy_bandwidth_gbps(copy_gbps);
  info.set_l2_copy_bandwidth_gbps(l2_copy_gbps);
  info.set_matmul_tflops(fp16_tflops);
  info.set_matmul_bf16_tflops(bf16_tflops);
  info.set_healthy(true);
  return std::make_unique<CudaDevice>(std::move(context), std::move(info), std::move(clock));
}

absl::StatusOr<int> CudaDeviceCount() {
  int count = 0;
  const cudaError_t error = cudaGetDeviceCount(&count);
  if (error != cudaSuccess || count == 0) {
    cudaGetLastError();
    const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
    return absl::UnavailableError(absl::StrCat(
        "no CUDA device: ",
        ExplainNoCudaDevice(error != cudaSuccess ? cudaGetErrorName(error) : "cudaErrorNoDevice",
                            CheckNvidiaDeviceNodes(), visible != nullptr ? visible : "")));
  }
  return count;
}

}  // namespace kbench::server::worker::backends::cuda
