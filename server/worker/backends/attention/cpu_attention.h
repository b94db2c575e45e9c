// The CPU workload of attention (cpu_attention.cc), registered in the CPU
// backend's list (server/worker/backends/cpu/cpu_workloads.cc).
#pragma once

#include "server/worker/backends/cpu/cpu_workloads.h"

namespace kbench::server::worker::backends {

cpu::CpuOpWorkload CpuAttentionWorkload();

}  // namespace kbench::server::worker::backends
