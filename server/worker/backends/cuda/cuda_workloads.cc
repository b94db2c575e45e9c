#include "server/worker/backends/cuda/cuda_workloads.h"

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "kernels/common/status_macros.h"
#include "server/worker/backends/attention/cuda_attention.h"
#include "server/worker/backends/vector_add/cuda_vector_add.h"

namespace kbench::server::worker::backends::cuda {

const std::vector<CudaOpWorkload>& CudaOpWorkloads() {
  static const std::vector<CudaOpWorkload> workloads = {CudaVectorAddWorkload(),
                                                        CudaAttentionWorkload()};
  return workloads;
}

absl::StatusOr<std::unique_ptr<Workload>> PrepareCudaWorkload(
    std::shared_ptr<DeviceContext> context, const Problem& problem) {
  for (const CudaOpWorkload& workload : CudaOpWorkloads())
    if (workload.op == problem.op) {
      KBENCH_ASSIGN_OR_RETURN(std::unique_ptr<CudaWorkload> prepared,
                              workload.prepare(std::move(context), problem));
      KBENCH_RETURN_IF_ERROR(prepared->LoadKernels(problem));
      return prepared;
    }
  return absl::InvalidArgumentError(
      absl::StrCat(std::string(problem.op->name()), " does not run on the CUDA backend"));
}

}  // namespace kbench::server::worker::backends::cuda
