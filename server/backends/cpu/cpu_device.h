// The CPU backend: always built, always present. Runs the CPU kernels of
// kernels/ (vector add naive and vectorized; attention naive and fused; fp32)
// on the calling thread, timed with the host's steady clock. It is what CI
// and laptops run, so every RPC, the worker, the CLI and the runner can be
// tested without a GPU.
#pragma once

#include <memory>

#include "server/device.h"

namespace kbench::server::cpu {

// Measures the host's copy bandwidth once (a memcpy of a buffer larger than
// the last-level cache) for the vector-add ceiling.
std::unique_ptr<Device> MakeCpuDevice();

}  // namespace kbench::server::cpu
