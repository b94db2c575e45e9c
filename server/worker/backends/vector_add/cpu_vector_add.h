// The CPU workload of vector add (cpu_vector_add.cc), registered in the CPU
// backend's list (server/worker/backends/cpu/cpu_workloads.cc).
#pragma once

#include "server/worker/backends/cpu/cpu_workloads.h"

namespace kbench::server::worker::backends {

cpu::CpuOpWorkload CpuVectorAddWorkload();

}  // namespace kbench::server::worker::backends
