// The ceilings a CUDA device's results are judged against, measured by the
// server on its own device at start-up (GetServerInfo reports them). Each
// takes the median of timed repetitions after warm-ups, with CUDA events on
// `stream`, and together they take well under a second of device time (plus
// cuBLAS's start-up).
#pragma once

#include <cuda_runtime_api.h>

#include "absl/status/statusor.h"

namespace kbench::server::cuda_backend {

// Device-to-device cudaMemcpyAsync of 1 GiB (less when the device has under
// 4 GiB free), counting bytes read plus bytes written, in GB/s (1e9).
absl::StatusOr<double> MeasureCopyBandwidthGbps(cudaStream_t stream);

// cuBLAS fp16 GEMM, 8192 x 8192 x 8192, fp32 accumulation (cublasGemmEx,
// CUBLAS_COMPUTE_32F), on seeded inputs in [-1, 1) (zeros run faster and
// would flatter the ceiling), FLOPs = 2 * M * N * K, in TFLOP/s (1e12).
absl::StatusOr<double> MeasureMatmulTflops(cudaStream_t stream);

}  // namespace kbench::server::cuda_backend
