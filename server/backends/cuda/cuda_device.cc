#include "server/backends/cuda/cuda_device.h"

#include <cuda_runtime_api.h>

#include <optional>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "server/backends/cuda/attention_workload.h"
#include "server/backends/cuda/ceilings.h"
#include "server/backends/cuda/device_context.h"
#include "server/backends/cuda/vector_add_workload.h"
#include "server/cuda_runtime/cuda_status.h"
#include "server/cuda_runtime/nvml_clock.h"
#include "server/status_macros.h"

namespace kbench::server {
namespace {

using cuda_backend::DeviceContext;

class CudaDevice final : public Device {
 public:
  CudaDevice(std::shared_ptr<DeviceContext> context, v1::DeviceInfo info,
             cuda::NvmlClock clock)
      : context_(std::move(context)),
        info_(std::move(info)),
        clock_(std::move(clock)) {}

  v1::DeviceInfo Info() const override {
    v1::DeviceInfo info = info_;
    info.set_healthy(Healthy());
    return info;
  }

  std::vector<v1::OpInfo> Ops() const override {
    v1::OpInfo vector_add;
    vector_add.set_op("vector_add");
    vector_add.add_variants(cuda_backend::kVectorAddNaive);
    vector_add.add_variants(cuda_backend::kVectorAddVectorized);
    vector_add.add_dtypes(v1::DTYPE_FP32);
    return {vector_add, cuda_backend::CudaAttentionOp()};
  }

  bool Healthy() const override { return context_->health.Healthy(); }

  absl::StatusOr<std::unique_ptr<Workload>> PrepareVectorAdd(
      const VectorAddProblem& problem) override {
    KBENCH_RETURN_IF_ERROR(context_->Enter());
    return context_->Track(
        cuda_backend::PrepareCudaVectorAdd(context_, problem));
  }

  absl::StatusOr<std::unique_ptr<Workload>> PrepareAttention(
      const AttentionProblem& problem) override {
    KBENCH_RETURN_IF_ERROR(context_->Enter());
    return context_->Track(
        cuda_backend::PrepareCudaAttention(context_, problem));
  }

  ClockReading ReadClock() override {
    ClockReading reading;
    if (const std::optional<cuda::SmClock> clock = clock_.Read()) {
      reading.available = true;
      reading.sm_clock_mhz = clock->mhz;
      reading.throttled = clock->throttled;
    }
    return reading;
  }

 private:
  std::shared_ptr<DeviceContext> context_;
  const v1::DeviceInfo info_;
  const cuda::NvmlClock clock_;
};

absl::StatusOr<std::unique_ptr<Device>> OpenCudaDevice(int ordinal) {
  KBENCH_CUDA_RETURN_IF_ERROR(cudaSetDevice(ordinal));
  cudaDeviceProp props{};
  KBENCH_CUDA_RETURN_IF_ERROR(cudaGetDeviceProperties(&props, ordinal));
  char pci_bus_id[32] = {};
  KBENCH_CUDA_RETURN_IF_ERROR(
      cudaDeviceGetPCIBusId(pci_bus_id, sizeof(pci_bus_id), ordinal));

  KBENCH_ASSIGN_OR_RETURN(cuda::Stream stream, cuda::Stream::Create());
  KBENCH_ASSIGN_OR_RETURN(cuda::L2Flusher flusher,
                          cuda::L2Flusher::Create(size_t(props.l2CacheSize)));
  auto context = std::make_shared<DeviceContext>(ordinal, std::move(stream),
                                                 std::move(flusher));

  KBENCH_ASSIGN_OR_RETURN(
      double copy_gbps,
      cuda_backend::MeasureCopyBandwidthGbps(context->stream.get()));
  KBENCH_ASSIGN_OR_RETURN(
      double matmul_tflops,
      cuda_backend::MeasureMatmulTflops(context->stream.get()));

  cuda::NvmlClock clock = cuda::NvmlClock::Open(pci_bus_id);
  double max_sm_clock_mhz = clock.MaxSmClockMhz().value_or(0);
  if (max_sm_clock_mhz == 0) {
    int khz = 0;
    KBENCH_CUDA_RETURN_IF_ERROR(
        cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, ordinal));
    max_sm_clock_mhz = khz / 1000.0;
  }

  v1::DeviceInfo info;
  info.set_backend("cuda");
  info.set_name(props.name);
  info.set_index(uint32_t(ordinal));
  info.set_sm_count(uint32_t(props.multiProcessorCount));
  info.set_l2_bytes(uint64_t(props.l2CacheSize));
  info.set_memory_bytes(uint64_t(props.totalGlobalMem));
  info.set_max_sm_clock_mhz(max_sm_clock_mhz);
  info.set_compute_capability(absl::StrCat(props.major, ".", props.minor));
  info.set_copy_bandwidth_gbps(copy_gbps);
  info.set_matmul_tflops(matmul_tflops);
  info.set_healthy(true);
  return std::make_unique<CudaDevice>(std::move(context), std::move(info),
                                      std::move(clock));
}

}  // namespace

absl::StatusOr<int> CudaDeviceCount() {
  int count = 0;
  const cudaError_t error = cudaGetDeviceCount(&count);
  if (error != cudaSuccess) {
    cudaGetLastError();
    return absl::UnavailableError(
        absl::StrCat("no CUDA device found: ", cudaGetErrorName(error), ": ",
                     cudaGetErrorString(error)));
  }
  if (count == 0) return absl::UnavailableError("no CUDA device found");
  return count;
}

absl::StatusOr<std::vector<std::unique_ptr<Device>>> OpenCudaDevices() {
  KBENCH_ASSIGN_OR_RETURN(int count, CudaDeviceCount());
  std::vector<std::unique_ptr<Device>> devices;
  for (int ordinal = 0; ordinal < count; ++ordinal) {
    absl::StatusOr<std::unique_ptr<Device>> device = OpenCudaDevice(ordinal);
    if (!device.ok()) {
      return absl::Status(device.status().code(),
                          absl::StrCat("opening CUDA device ", ordinal, ": ",
                                       device.status().message()));
    }
    devices.push_back(*std::move(device));
  }
  return devices;
}

}  // namespace kbench::server
