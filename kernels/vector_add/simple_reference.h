// The CPU backend's device reference of vector add: the plainest fp32 loop,
// sharing nothing with the variants (cpu_vector_add.cc), so that a bug in a
// variant cannot also be in its reference. Every element of a variant's
// output is compared with it (server/worker/device.h,
// Workload::CompareWithReference); it is itself checked against the
// double-precision reference (reference.h) on sampled elements. The CUDA
// backend's reference kernel (kernels/cuda/vector_add/reference_kernel.h)
// follows the same algorithm.
#pragma once

#include <cstdint>

namespace kbench::kernels {

// c[i] = a[i] + b[i] for i in [0, n).
void VectorAddSimpleReference(const float* a, const float* b, float* c, int64_t n);

}  // namespace kbench::kernels
