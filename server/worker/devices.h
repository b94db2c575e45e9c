// Opens the device a worker owns, of the backend the operator chose. Only
// kbench-worker calls these: the front never opens a device.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "server/worker/device.h"

namespace kbench::server::worker {

// "cuda" when the build has CUDA and the runtime sees a device, else "cpu";
// for "cpu" and "cuda" the backend itself. INVALID_ARGUMENT for any other
// name.
absl::StatusOr<std::string> ResolveBackend(const std::string& backend);

// How many devices `backend` ("cpu" or "cuda") has on this host: 1 for the
// CPU; for CUDA what the runtime sees (UNAVAILABLE when none, or when the
// build has no CUDA).
absl::StatusOr<uint32_t> DeviceCount(const std::string& backend);

// Opens device `index` of `backend` ("cpu" or "cuda"). The CPU backend opens
// any index: each is the host's CPU reporting that index, so that several
// devices can be tested on a machine without GPUs. A CUDA index must be
// below DeviceCount("cuda").
absl::StatusOr<std::unique_ptr<Device>> OpenDevice(const std::string& backend, uint32_t index);

// From now on, what kernels of `backend` print (device printf) is captured
// for their results (VariantResult.kernel_output) instead of reaching
// stdout: the CUDA backend's PrintfCapture, held for the process's life.
// Only kbench-worker calls it (it takes stdout over); nothing to do for the
// CPU backend.
absl::Status CaptureKernelPrintf(const std::string& backend);

}  // namespace kbench::server::worker
