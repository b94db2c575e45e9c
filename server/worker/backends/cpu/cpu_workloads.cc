#include "server/worker/backends/cpu/cpu_workloads.h"

#include <map>
#include <string>

#include "absl/strings/str_cat.h"

namespace kbench::server::cpu {

// One factory per op, defined in the op's workload file.
absl::StatusOr<std::unique_ptr<Workload>> MakeCpuVectorAdd(const Problem& problem,
                                                           const GoOn& go_on);
absl::StatusOr<std::unique_ptr<Workload>> MakeCpuAttention(const Problem& problem,
                                                           const GoOn& go_on);

absl::StatusOr<std::unique_ptr<Workload>> PrepareCpuWorkload(const Problem& problem,
                                                             const GoOn& go_on) {
  using Factory = absl::StatusOr<std::unique_ptr<Workload>> (*)(const Problem&, const GoOn&);
  static const std::map<std::string_view, Factory> kFactories = {
      {"vector_add", &MakeCpuVectorAdd},
      {"attention", &MakeCpuAttention},
  };
  const auto it = kFactories.find(problem.op->name());
  if (it == kFactories.end())
    return absl::InvalidArgumentError(
        absl::StrCat(std::string(problem.op->name()), " does not run on the CPU backend"));
  return it->second(problem, go_on);
}

}  // namespace kbench::server::cpu
