// The L2 flusher's kernel (l2_flusher.h): reads a device buffer through the
// L2 and writes nothing, so the lines it leaves in the L2 are clean.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

namespace kbench::kernels::cuda_runtime {

// Reads every 16 bytes of `buffer` (16-byte aligned; `bytes` a multiple of
// 16, filled with zeros) on `stream`; `sink` (one device unsigned) is never
// written. Returns the launch's error; does not wait.
cudaError_t LaunchReadAll(const void* buffer, size_t bytes, unsigned* sink, cudaStream_t stream);

}  // namespace kbench::kernels::cuda_runtime
