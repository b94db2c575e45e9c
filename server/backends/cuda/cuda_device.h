// The CUDA backend: one Device per CUDA GPU (server/device.h gives the
// contract). Opening a device creates its stream and L2 flusher, finds its
// NVML handle, and measures its ceilings (copy bandwidth, fp16 matmul rate),
// which takes about a second per GPU, most of it cuBLAS's start-up.
//
// Ops: vector_add (naive, vectorized; fp32); attention (naive, fused; fp32,
// fp16, bf16; head_dim 64 and 128: attention_workload.h).
//
// Nothing here crashes or hangs where there is no GPU or no driver: the CUDA
// runtime reports that as an error, and so do these functions.
#pragma once

#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "server/device.h"

namespace kbench::server {

// Every CUDA device, in CUDA's order; UNAVAILABLE ("no CUDA device found:
// ...") when the runtime finds none, or the error of the device that failed
// to open.
absl::StatusOr<std::vector<std::unique_ptr<Device>>> OpenCudaDevices();

// How many CUDA devices the runtime sees; UNAVAILABLE naming the runtime's
// reason when none (no driver, no device). Cheap: measures nothing.
absl::StatusOr<int> CudaDeviceCount();

}  // namespace kbench::server
