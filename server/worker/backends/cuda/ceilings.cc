#include "server/worker/backends/cuda/ceilings.h"

#include <algorithm>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/strings/str_cat.h"
#include "kernels/common/status_macros.h"
#include "kernels/cuda/copy_kernel.h"
#include "kernels/cuda/seeded_fill.h"
#include "kernels/cuda_runtime/cublas_handle.h"
#include "kernels/cuda_runtime/cuda_status.h"
#include "kernels/cuda_runtime/device_buffer.h"
#include "kernels/cuda_runtime/event_pair.h"

namespace kbench::server::worker::backends::cuda {
namespace {

// Warm-ups long enough (tens of ms) for an idle GPU to reach its clocks.
constexpr int kCopyWarmups = 50;
constexpr int kCopyRepetitions = 20;
constexpr int kGemmWarmups = 20;
constexpr int kGemmRepetitions = 10;
constexpr size_t kCopyBytes = size_t(1) << 30;
constexpr int kGemmSize = 8192;

// Median device time of `enqueue` over `repetitions`, after `warmups`.
absl::StatusOr<double> MedianMs(cudaStream_t stream, int warmups, int repetitions,
                                absl::FunctionRef<absl::Status()> enqueue) {
  KBENCH_ASSIGN_OR_RETURN(kernels::cuda_runtime::EventPair events,
                          kernels::cuda_runtime::EventPair::Create());
  for (int i = 0; i < warmups; ++i) {
    KBENCH_RETURN_IF_ERROR(enqueue());
  }
  std::vector<double> times;
  for (int i = 0; i < repetitions; ++i) {
    KBENCH_RETURN_IF_ERROR(events.Start(stream));
    KBENCH_RETURN_IF_ERROR(enqueue());
    KBENCH_RETURN_IF_ERROR(events.Stop(stream));
    KBENCH_ASSIGN_OR_RETURN(double ms, events.ElapsedMs());
    times.push_back(ms);
  }
  std::nth_element(times.begin(), times.begin() + times.size() / 2, times.end());
  return times[times.size() / 2];
}

// Bytes read plus written per second by the better of cudaMemcpyAsync and
// the tuned copy kernel, copying `bytes` back to back (warm-ups first); each
// timed interval holds `copies` copies, so short copies are not dominated
// by the gaps between launches.
absl::StatusOr<double> BestCopyGbps(cudaStream_t stream, size_t bytes, int sm_count, int copies) {
  KBENCH_ASSIGN_OR_RETURN(kernels::cuda_runtime::DeviceBuffer src,
                          kernels::cuda_runtime::DeviceBuffer::Allocate(bytes));
  KBENCH_ASSIGN_OR_RETURN(kernels::cuda_runtime::DeviceBuffer dst,
                          kernels::cuda_runtime::DeviceBuffer::Allocate(bytes));
  KBENCH_CUDA_RETURN_IF_ERROR(cudaMemsetAsync(src.get(), 1, bytes, stream));
  auto memcpy = [&]() -> absl::Status {
    for (int i = 0; i < copies; ++i)
      KBENCH_CUDA_RETURN_IF_ERROR(
          cudaMemcpyAsync(dst.get(), src.get(), bytes, cudaMemcpyDeviceToDevice, stream));
    return absl::OkStatus();
  };
  // A few waves of 256-thread blocks: enough in flight to cover latency.
  const int blocks = std::max(1, sm_count) * 8;
  auto kernel = [&]() -> absl::Status {
    for (int i = 0; i < copies; ++i)
      KBENCH_CUDA_RETURN_IF_ERROR(kernels::cuda::LaunchCopy(
          src.as<float>(), dst.as<float>(), int64_t(bytes / sizeof(float)), blocks, stream));
    return absl::OkStatus();
  };
  KBENCH_ASSIGN_OR_RETURN(const double memcpy_ms,
                          MedianMs(stream, kCopyWarmups, kCopyRepetitions, memcpy));
  KBENCH_ASSIGN_OR_RETURN(const double kernel_ms,
                          MedianMs(stream, kCopyWarmups, kCopyRepetitions, kernel));
  return 2.0 * double(bytes) * copies / (std::min(memcpy_ms, kernel_ms) * 1e-3) / 1e9;
}

}  // namespace

absl::StatusOr<double> MeasureCopyBandwidthGbps(cudaStream_t stream, int sm_count) {
  size_t free_bytes = 0, total_bytes = 0;
  KBENCH_CUDA_RETURN_IF_ERROR(cudaMemGetInfo(&free_bytes, &total_bytes));
  return BestCopyGbps(stream, std::min(kCopyBytes, free_bytes / 4), sm_count, 1);
}

absl::StatusOr<double> MeasureL2CopyBandwidthGbps(cudaStream_t stream, size_t l2_bytes,
                                                  int sm_count) {
  // Source and destination together a quarter of the L2: after the first
  // copy both stay resident, as the arrays of a hot sample do; 64 copies
  // back to back in each timed interval, as a hot sample's graph runs them.
  return BestCopyGbps(stream, std::max<size_t>(l2_bytes / 8, 1 << 20), sm_count, 64);
}

absl::StatusOr<double> MeasureMatmulTflops(cudaStream_t stream, kernels::DType dtype) {
  constexpr int64_t kElements = int64_t(kGemmSize) * kGemmSize;
  constexpr size_t kBytes = size_t(kElements) * 2;
  if (dtype == kernels::DType::kFp32)
    return absl::InvalidArgumentError("the matmul ceiling is measured for fp16 and bf16");
  const cudaDataType_t type = dtype == kernels::DType::kBf16 ? CUDA_R_16BF : CUDA_R_16F;
  KBENCH_ASSIGN_OR_RETURN(kernels::cuda_runtime::DeviceBuffer a,
                          kernels::cuda_runtime::DeviceBuffer::Allocate(kBytes));
  KBENCH_ASSIGN_OR_RETURN(kernels::cuda_runtime::DeviceBuffer b,
                          kernels::cuda_runtime::DeviceBuffer::Allocate(kBytes));
  KBENCH_ASSIGN_OR_RETURN(kernels::cuda_runtime::DeviceBuffer c,
                          kernels::cuda_runtime::DeviceBuffer::Allocate(kBytes));
  using kernels::InputStream;
  KBENCH_CUDA_RETURN_IF_ERROR(
      kernels::cuda::LaunchFillSeeded(dtype, 1, InputStream::kA, 0, a.get(), kElements, stream));
  KBENCH_CUDA_RETURN_IF_ERROR(
      kernels::cuda::LaunchFillSeeded(dtype, 1, InputStream::kB, 0, b.get(), kElements, stream));

  KBENCH_ASSIGN_OR_RETURN(kernels::cuda_runtime::CublasHandle handle,
                          kernels::cuda_runtime::CublasHandle::Create());
  KBENCH_RETURN_IF_ERROR(handle.Bind(stream));
  const float alpha = 1.0f, beta = 0.0f;
  const int n = kGemmSize;
  auto gemm = [&]() -> absl::Status {
    KBENCH_CUBLAS_RETURN_IF_ERROR(cublasGemmEx(
        handle.get(), CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, a.get(), type, n, b.get(), type, n,
        &beta, c.get(), type, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    return absl::OkStatus();
  };
  KBENCH_ASSIGN_OR_RETURN(const double ms, MedianMs(stream, kGemmWarmups, kGemmRepetitions, gemm));
  return 2.0 * double(n) * n * n / (ms * 1e-3) / 1e12;
}

}  // namespace kbench::server::worker::backends::cuda
