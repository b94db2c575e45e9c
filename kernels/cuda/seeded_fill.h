// Seeded inputs made on the device: element i of a stream is
// kernels::SeededValue(seed, stream, first + i), the same function the CPU
// reference evaluates, so no input crosses the PCIe bus and the reference
// needs no copy of the device's buffers.
//
// Contract: `out` is a device pointer to n elements; the launcher enqueues on
// `stream`, does not wait, and returns the launch's error.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels/seeded_input.h"

namespace kbench::kernels::cuda {

// fp32 elements.
cudaError_t LaunchFillSeeded(uint64_t seed, InputStream input, uint64_t first,
                             float* out, int64_t n, cudaStream_t stream);

// IEEE binary16 elements (the values rounded to nearest), for the fp16 GEMM
// that measures the matmul ceiling; `out` points to n 2-byte halves.
cudaError_t LaunchFillSeededHalf(uint64_t seed, InputStream input,
                                 uint64_t first, void* out, int64_t n,
                                 cudaStream_t stream);

}  // namespace kbench::kernels::cuda
