// The CUDA device reference of vector add, against which verification
// compares every element of a variant's output (kernels/cuda/
// comparison_kernel.h). It shares no code with the variants: plain fp32
// arithmetic, run once per workload and untimed.
//
// Contract: pointers are device memory; inputs are the workload's own
// buffers in its dtype (16-bit inputs are already rounded to the dtype);
// `ref` holds fp32 elements; the launcher enqueues on `stream`, does not
// wait, and returns the launch's error.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels/dtype.h"

namespace kbench::kernels::cuda {

// ref[i] = float(a[i]) + float(b[i]), one thread per element.
cudaError_t LaunchVectorAddReference(DType dtype, const void* a, const void* b, float* ref,
                                     int64_t n, cudaStream_t stream);

}  // namespace kbench::kernels::cuda
