// The CUDA workload of vector add (cuda_vector_add.cc), registered in the CUDA
// backend's list (server/worker/backends/cuda/cuda_workloads.cc).
#pragma once

#include "server/worker/backends/cuda/cuda_workloads.h"

namespace kbench::server::worker::backends {

cuda::CudaOpWorkload CudaVectorAddWorkload();

}  // namespace kbench::server::worker::backends
