#include "server/worker/learner_kernels.h"

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "kernels/common/status_macros.h"
#include "proto/ops/dtypes.h"
#include "proto/ops/kernel_abi.h"
#include "server/run/kernel_admission.h"

namespace kbench::server::worker {

absl::StatusOr<std::vector<LearnerKernel>> CompileLearnerKernels(
    const Problem& problem, worker::compile::KernelCompiler& compiler,
    const std::function<void(std::string_view name)>& starting) {
  std::vector<LearnerKernel> kernels;
  const v1::RunRequest& request = problem.request;
  if (request.kernels().empty()) return kernels;
  const proto::ops::KernelAbi* abi = problem.op->kernel_abi();
  if (abi == nullptr)
    return absl::InvalidArgumentError(
        absl::StrCat("kernels: ", std::string(problem.op->name()), " takes no learner's kernels"));
  for (int i = 0; i < request.kernels_size(); ++i) {
    const v1::KernelSource& source = request.kernels(i);
    const std::string field = absl::StrCat("kernels[", i, "]");
    KBENCH_ASSIGN_OR_RETURN(const LaunchValues launch,
                            EvaluateLaunch(field, source, *abi, request));
    v1::CompileKernelRequest compile;
    compile.set_op(std::string(problem.op->name()));
    compile.set_dtype(proto::ops::ToProto(problem.dtype));
    *compile.mutable_kernel() = source;
    if (starting) starting(source.name());
    absl::StatusOr<worker::compile::CompiledKernel> compiled = compiler.CompileModule(compile);
    if (!compiled.ok())
      return absl::Status(
          compiled.status().code(),
          absl::StrCat(field, " '", source.name(), "': ", compiled.status().message()));
    LearnerKernel kernel;
    kernel.name = source.name();
    kernel.entry = source.entry();
    kernel.cubin = std::move(compiled->cubin);
    kernel.facts = std::move(compiled->facts);
    kernel.grid = launch.grid;
    kernel.block = launch.block;
    kernel.shared_memory_bytes = launch.shared_memory_bytes;
    if (kernel.cubin.empty())
      return absl::InternalError(
          absl::StrCat(field, " '", source.name(), "': the compiler gave no cubin"));
    kernels.push_back(std::move(kernel));
  }
  return kernels;
}

}  // namespace kbench::server::worker
