// The CUDA backend: one Device per CUDA GPU (server/worker/device.h gives the
// contract), opened by the worker that owns the GPU. What it runs is the
// ops' kCudaBackend variant tables (proto/ops); its workloads are listed in
// cuda_workloads.cc.
//
// Nothing here crashes or hangs where there is no GPU or no driver: the CUDA
// runtime reports that as an error, and so do these functions.
#pragma once

#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "server/worker/device.h"

namespace kbench::server::worker::backends::cuda {

// Opens CUDA device `ordinal` (a worker opens one): its stream and L2
// flusher, its NVML handle, and its ceilings measured (copy bandwidth from
// DRAM and within the L2, fp16 and bf16 matmul rates), about a second.
absl::StatusOr<std::unique_ptr<Device>> OpenCudaDevice(int ordinal);

// How many CUDA devices the runtime sees; UNAVAILABLE naming the runtime's
// reason when none (no driver, no device). Cheap: measures nothing.
absl::StatusOr<int> CudaDeviceCount();

}  // namespace kbench::server::worker::backends::cuda
