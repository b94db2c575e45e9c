#include "server/worker/backends/cuda/cuda_workloads.h"

#include <map>
#include <string>
#include <string_view>

#include "absl/strings/str_cat.h"

namespace kbench::server::cuda_backend {

// One factory per op, defined in the op's workload file.
absl::StatusOr<std::unique_ptr<Workload>> PrepareCudaVectorAdd(
    std::shared_ptr<DeviceContext> context, const Problem& problem);
absl::StatusOr<std::unique_ptr<Workload>> PrepareCudaAttention(
    std::shared_ptr<DeviceContext> context, const Problem& problem);

absl::StatusOr<std::unique_ptr<Workload>> PrepareCudaWorkload(
    std::shared_ptr<DeviceContext> context, const Problem& problem) {
  using Factory = absl::StatusOr<std::unique_ptr<Workload>> (*)(
      std::shared_ptr<DeviceContext>, const Problem&);
  static const std::map<std::string_view, Factory> kFactories = {
      {"vector_add", &PrepareCudaVectorAdd},
      {"attention", &PrepareCudaAttention},
  };
  const auto it = kFactories.find(problem.op->name());
  if (it == kFactories.end())
    return absl::InvalidArgumentError(
        absl::StrCat(std::string(problem.op->name()), " does not run on the CUDA backend"));
  return it->second(std::move(context), problem);
}

}  // namespace kbench::server::cuda_backend
