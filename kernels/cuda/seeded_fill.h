// Seeded inputs made on the device: element i of a stream is
// kernels::SeededValue(seed, stream, first + i) rounded to the dtype (round
// to nearest even, as kernels::RoundTo rounds it on the host), so the CPU
// reference evaluates the same values, no input crosses the PCIe bus and the
// reference needs no copy of the device's buffers. Not timed: it runs once
// when a problem's inputs are made.
//
// LaunchCountSeededChanges checks such a buffer instead: it adds to
// `*count` (one device unsigned long long) the elements whose bits differ
// from what LaunchFillSeeded wrote, so a kernel that wrote into an input
// is caught whatever it wrote.
//
// Contract: `out` (`data`) is a device pointer to n elements of `dtype`; the launcher
// enqueues on `stream`, does not wait, and returns the launch's error
// (cudaErrorInvalidValue for n < 1).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels/dtype.h"
#include "kernels/seeded_input.h"

namespace kbench::kernels::cuda {

cudaError_t LaunchFillSeeded(DType dtype, uint64_t seed, InputStream input, uint64_t first,
                             void* out, int64_t n, cudaStream_t stream);
cudaError_t LaunchCountSeededChanges(DType dtype, uint64_t seed, InputStream input, uint64_t first,
                                     const void* data, int64_t n, unsigned long long* count,
                                     cudaStream_t stream);

}  // namespace kbench::kernels::cuda
