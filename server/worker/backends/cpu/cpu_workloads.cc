#include "server/worker/backends/cpu/cpu_workloads.h"

#include <map>
#include <string>

#include "absl/strings/str_cat.h"

namespace kbench::server::cpu {

// One factory per op, defined in the op's workload file.
std::unique_ptr<Workload> MakeCpuVectorAdd(const Problem& problem);
std::unique_ptr<Workload> MakeCpuAttention(const Problem& problem);

absl::StatusOr<std::unique_ptr<Workload>> PrepareCpuWorkload(const Problem& problem) {
  using Factory = std::unique_ptr<Workload> (*)(const Problem&);
  static const std::map<std::string_view, Factory> kFactories = {
      {"vector_add", &MakeCpuVectorAdd},
      {"attention", &MakeCpuAttention},
  };
  const auto it = kFactories.find(problem.op->name());
  if (it == kFactories.end())
    return absl::InvalidArgumentError(
        absl::StrCat(std::string(problem.op->name()), " does not run on the CPU backend"));
  return it->second(problem);
}

}  // namespace kbench::server::cpu
