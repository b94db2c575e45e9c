#include "server/worker/backends/cpu/cpu_workloads.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "server/worker/backends/attention/cpu_attention.h"
#include "server/worker/backends/vector_add/cpu_vector_add.h"

namespace kbench::server::worker::backends::cpu {

const std::vector<CpuOpWorkload>& CpuOpWorkloads() {
  static const std::vector<CpuOpWorkload> workloads = {CpuVectorAddWorkload(),
                                                       CpuAttentionWorkload()};
  return workloads;
}

absl::StatusOr<std::unique_ptr<Workload>> PrepareCpuWorkload(const Problem& problem,
                                                             const GoOn& go_on) {
  for (const CpuOpWorkload& workload : CpuOpWorkloads())
    if (workload.op == problem.op) return workload.prepare(problem, go_on);
  return absl::InvalidArgumentError(
      absl::StrCat(std::string(problem.op->name()), " does not run on the CPU backend"));
}

}  // namespace kbench::server::worker::backends::cpu
