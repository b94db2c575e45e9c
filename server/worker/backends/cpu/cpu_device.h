// The CPU backend: always built, always present. Runs the CPU kernels of
// kernels/ (vector add naive and vectorized; attention naive and fused; fp32)
// on the calling thread, timed with the host's steady clock. It is what CI
// and laptops run, so every RPC, the worker, the CLI and the runner can be
// tested without a GPU.
#pragma once

#include <cstdint>
#include <memory>

#include "server/worker/device.h"

namespace kbench::server::worker::backends::cpu {

// Measures the host's copy bandwidth once (a memcpy of a buffer larger than
// the last-level cache) for the vector-add ceiling. `index` is what Info()
// reports: a host may serve its CPU as several devices (tests of dispatch
// over devices without GPUs).
std::unique_ptr<Device> MakeCpuDevice(uint32_t index = 0);

}  // namespace kbench::server::worker::backends::cpu
