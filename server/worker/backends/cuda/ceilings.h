// The ceilings a CUDA device's results are judged against, measured by the
// server's worker on its own device at start-up (GetServerInfo reports
// them). Each takes the median of timed repetitions after warm-ups, with
// CUDA events on `stream`; together they take about a second of device time
// (plus cuBLAS's start-up).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

#include "absl/status/statusor.h"
#include "kernels/dtype.h"

namespace kbench::server::worker::backends::cuda {

// Device-to-device copy of 1 GiB (less when the device has under 4 GiB
// free), the better of cudaMemcpyAsync and a tuned 16-byte copy kernel
// (kernels/cuda/copy_kernel.h), counting bytes read plus bytes written, in
// GB/s (1e9): the DRAM ceiling of cold vector add.
absl::StatusOr<double> MeasureCopyBandwidthGbps(cudaStream_t stream, int sm_count);

// The same copy of l2_bytes / 8 bytes, whose source and destination stay in
// the L2, 64 copies back to back in each timed interval: the ceiling of hot
// vector add, whose arrays are L2-resident.
absl::StatusOr<double> MeasureL2CopyBandwidthGbps(cudaStream_t stream, size_t l2_bytes,
                                                  int sm_count);

// cuBLAS GEMM of `dtype` (fp16 or bf16), 8192 x 8192 x 8192, fp32
// accumulation (cublasGemmEx, CUBLAS_COMPUTE_32F), on seeded inputs in
// [-1, 1) (zeros run faster and would flatter the ceiling), FLOPs =
// 2 * M * N * K, in TFLOP/s (1e12).
absl::StatusOr<double> MeasureMatmulTflops(cudaStream_t stream, kernels::DType dtype);

}  // namespace kbench::server::worker::backends::cuda
