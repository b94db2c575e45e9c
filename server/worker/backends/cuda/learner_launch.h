// One learner's kernel loaded on the device, ready to launch: its cubin
// loaded as a module (cuModuleLoadData), its entry found, its launch
// checked against the device's own limits before anything runs, and its
// arguments bound to the workload's buffers (proto/ops/kernel_arguments.h).
//
// Load refuses, with INVALID_ARGUMENT naming the limit:
//   - more threads per block than the function takes
//     (CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: its __launch_bounds__, or
//     its registers per thread);
//   - static plus dynamic shared memory over the device's opt-in maximum
//     per block (cudaDevAttrMaxSharedMemoryPerBlockOptin); more than the
//     default 48 KiB of dynamic shared memory is opted into
//     (CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES).
// Its launch facts (registers, shared memory, theoretical occupancy from
// cuOccupancyMaxActiveBlocksPerMultiprocessor) are in Config().
//
// Reload loads the module again from its cubin, so its `__device__`
// variables start from their initial values: the workload reloads every
// learner's module before each timed round (cuda_workload.h).
//
// A fault of the kernel (illegal address, trap) surfaces at the stream's
// next synchronisation as the CUDA error, which DeviceContext::Track turns
// into an unhealthy device: the worker then exits and the front starts a
// new one (worker_service.cc).
//
// Threading: the device's one worker thread, with the device entered.
#pragma once

#include <cuda_runtime_api.h>

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "proto/ops/kernel_arguments.h"
#include "server/run/run_plan.h"
#include "server/worker/backends/cuda/driver_api.h"

namespace kbench::server::worker::backends::cuda {

class LearnerLaunch {
 public:
  // `field` names the kernel in messages ("kernels[0] 'my_add.cu'").
  static absl::StatusOr<std::unique_ptr<LearnerLaunch>> Load(
      const std::string& field, const LearnerKernel& kernel, int ordinal,
      std::unique_ptr<proto::ops::KernelArgumentPack> arguments);
  ~LearnerLaunch();
  LearnerLaunch(const LearnerLaunch&) = delete;
  LearnerLaunch& operator=(const LearnerLaunch&) = delete;

  // Enqueues one launch on `stream` without waiting.
  absl::Status Enqueue(cudaStream_t stream);
  // Unloads the module and loads it again (its globals reset); nothing of
  // it may be running or captured in a graph. Launch facts are unchanged.
  absl::Status Reload();

  // "grid 4096x1x1 block 256x1x1 smem 0 B; 12 registers, 0 B static smem;
  // occupancy 100% (8 blocks/SM)": VariantResult.config.
  const std::string& Config() const { return config_; }

 private:
  LearnerLaunch() = default;
  // Loads cubin_ and finds entry_ in it.
  absl::Status LoadModule();
  // Opts function_ into shared_bytes_ of dynamic shared memory where that
  // is over the default 48 KiB.
  absl::Status OptIntoSharedMemory();

  const DriverApi* api_ = nullptr;
  std::string cubin_;
  std::string entry_;
  CUmodule module_ = nullptr;
  CUfunction function_ = nullptr;
  unsigned grid_[3] = {1, 1, 1};
  unsigned block_[3] = {1, 1, 1};
  unsigned shared_bytes_ = 0;
  std::unique_ptr<proto::ops::KernelArgumentPack> arguments_;
  std::string config_;
};

}  // namespace kbench::server::worker::backends::cuda
