// The CUDA workload of attention (cuda_attention.cc), registered in the CUDA
// backend's list (server/worker/backends/cuda/cuda_workloads.cc).
#pragma once

#include "server/worker/backends/cuda/cuda_workloads.h"

namespace kbench::server::worker::backends {

cuda::CudaOpWorkload CudaAttentionWorkload();

}  // namespace kbench::server::worker::backends
