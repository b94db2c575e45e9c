#include "server/run/kernel_admission.h"

#include <algorithm>
#include <cctype>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "kernels/common/status_macros.h"
#include "proto/ops/backends.h"
#include "proto/ops/dtypes.h"
#include "proto/ops/launch_expression.h"
#include "server/run/kernel_includes.h"

namespace kbench::server {
namespace {

bool IsNameChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
}

absl::Status CheckName(const std::string& field, const std::string& name) {
  if (name.empty() || name.size() > kMaxKernelNameLength ||
      !std::all_of(name.begin(), name.end(), IsNameChar))
    return absl::InvalidArgumentError(absl::StrCat(
        field, ".name must be 1 to ", kMaxKernelNameLength,
        " letters, digits, '.', '_' or '-', got '", name.substr(0, kMaxKernelNameLength), "'"));
  return absl::OkStatus();
}

absl::Status CheckEntry(const std::string& field, const std::string& entry) {
  const bool identifier =
      !entry.empty() && !std::isdigit(static_cast<unsigned char>(entry[0])) &&
      std::all_of(entry.begin(), entry.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$';
      });
  if (!identifier || entry.size() > kMaxKernelEntryLength)
    return absl::InvalidArgumentError(
        absl::StrCat(field, ".entry must be an identifier of 1 to ", kMaxKernelEntryLength,
                     " characters (the kernel function's name), got '",
                     entry.substr(0, kMaxKernelEntryLength), "'"));
  return absl::OkStatus();
}

const char* const kAllowedOptions =
    "-O0, -O1, -O2, -O3, --use_fast_math, -lineinfo, --maxrregcount=N (N from 16 to 255)";

absl::Status CheckOptions(const std::string& field, const v1::KernelSource& kernel) {
  if (kernel.options_size() > kMaxKernelOptions)
    return absl::InvalidArgumentError(absl::StrCat(field, ".options: at most ", kMaxKernelOptions,
                                                   ", got ", kernel.options_size()));
  for (int i = 0; i < kernel.options_size(); ++i) {
    const std::string& option = kernel.options(i);
    const std::string name = absl::StrCat(field, ".options[", i, "]");
    if (option == "-O0" || option == "-O1" || option == "-O2" || option == "-O3" ||
        option == "-lineinfo")
      continue;
    if (option == "--use_fast_math") {
      if (kernel.language() == v1::KERNEL_LANGUAGE_PTX)
        return absl::InvalidArgumentError(
            absl::StrCat(name, ": --use_fast_math applies to CUDA C++ only, not to PTX"));
      continue;
    }
    int registers = 0;
    if (absl::StartsWith(option, "--maxrregcount=")) {
      if (absl::SimpleAtoi(option.substr(15), &registers) && registers >= kMinMaxRegisterCount &&
          registers <= kMaxMaxRegisterCount)
        continue;
      return absl::InvalidArgumentError(
          absl::StrCat(name, ": --maxrregcount must be from ", kMinMaxRegisterCount, " to ",
                       kMaxMaxRegisterCount, ", got '", option.substr(15, 16), "'"));
    }
    return absl::InvalidArgumentError(absl::StrCat(name, ": '", option.substr(0, 64),
                                                   "' is not allowed; allowed: ", kAllowedOptions));
  }
  return absl::OkStatus();
}

// Parses the launch spec; `required`: grid and block must be given.
absl::Status ParseLaunch(const std::string& field, const v1::LaunchSpec& launch,
                         const proto::ops::KernelAbi& abi, bool required,
                         std::vector<proto::ops::LaunchExpression>* grid,
                         std::vector<proto::ops::LaunchExpression>* block,
                         std::vector<proto::ops::LaunchExpression>* shared) {
  struct Part {
    const char* name;
    const std::string& text;
    size_t max_items;
    std::vector<proto::ops::LaunchExpression>* out;
  };
  for (const Part& part :
       {Part{"grid", launch.grid(), 3, grid}, Part{"block", launch.block(), 3, block},
        Part{"shared_memory_bytes", launch.shared_memory_bytes(), 1, shared}}) {
    const std::string name = absl::StrCat(field, ".launch.", part.name);
    if (part.text.empty()) {
      if (required && part.out != shared)
        return absl::InvalidArgumentError(absl::StrCat(
            name, " is required to run a kernel, e.g. ",
            part.out == grid ? "\"cdiv(" + abi.sizes.front() + ", 256)\"" : "\"256\""));
      continue;
    }
    absl::StatusOr<std::vector<proto::ops::LaunchExpression>> parsed =
        proto::ops::ParseLaunchList(part.text, abi.sizes, part.max_items);
    if (!parsed.ok())
      return absl::InvalidArgumentError(
          absl::StrCat(name, " '", part.text.substr(0, 64), "': ", parsed.status().message()));
    *part.out = *std::move(parsed);
  }
  return absl::OkStatus();
}

// Evaluates `expressions` and checks each value against [1, bounds[i]].
absl::StatusOr<std::vector<int64_t>> Dimensions(
    const std::string& name, const std::vector<proto::ops::LaunchExpression>& expressions,
    const std::vector<int64_t>& sizes, const std::vector<int64_t>& bounds) {
  std::vector<int64_t> values;
  static const char* const kAxes[] = {"x", "y", "z"};
  for (size_t i = 0; i < expressions.size(); ++i) {
    absl::StatusOr<int64_t> value = expressions[i].Evaluate(sizes);
    if (!value.ok())
      return absl::InvalidArgumentError(absl::StrCat(name, ": ", value.status().message()));
    if (*value < 1 || *value > bounds[i])
      return absl::InvalidArgumentError(absl::StrCat(name, ".", kAxes[i], " must be from 1 to ",
                                                     bounds[i], " for this problem, got ", *value));
    values.push_back(*value);
  }
  return values;
}

}  // namespace

absl::StatusOr<LaunchValues> EvaluateLaunch(const std::string& field,
                                            const v1::KernelSource& kernel,
                                            const proto::ops::KernelAbi& abi,
                                            const v1::RunRequest& request) {
  std::vector<proto::ops::LaunchExpression> grid, block, shared;
  KBENCH_RETURN_IF_ERROR(ParseLaunch(field, kernel.launch(), abi, true, &grid, &block, &shared));
  const std::vector<int64_t> sizes = proto::ops::SizeValues(abi, request);
  const std::string prefix = absl::StrCat(field, ".launch.");
  LaunchValues values;
  KBENCH_ASSIGN_OR_RETURN(std::vector<int64_t> blocks,
                          Dimensions(prefix + "grid", grid, sizes, {INT32_MAX, 65535, 65535}));
  KBENCH_ASSIGN_OR_RETURN(std::vector<int64_t> threads,
                          Dimensions(prefix + "block", block, sizes, {1024, 1024, 64}));
  int64_t total = 1;
  for (int64_t t : threads) total *= t;
  if (total > kMaxThreadsPerBlock)
    return absl::InvalidArgumentError(absl::StrCat(prefix, "block: at most ", kMaxThreadsPerBlock,
                                                   " threads per block, got ", total));
  std::copy(blocks.begin(), blocks.end(), values.grid.begin());
  std::copy(threads.begin(), threads.end(), values.block.begin());
  if (!shared.empty()) {
    absl::StatusOr<int64_t> bytes = shared.front().Evaluate(sizes);
    if (!bytes.ok())
      return absl::InvalidArgumentError(
          absl::StrCat(prefix, "shared_memory_bytes: ", bytes.status().message()));
    if (*bytes < 0 || *bytes > kMaxDynamicSharedMemoryBytes)
      return absl::InvalidArgumentError(
          absl::StrCat(prefix, "shared_memory_bytes must be from 0 to ",
                       kMaxDynamicSharedMemoryBytes, " for this problem, got ", *bytes));
    values.shared_memory_bytes = *bytes;
  }
  return values;
}

absl::Status CheckKernelSource(const std::string& field, const v1::KernelSource& kernel,
                               const proto::ops::KernelAbi& abi, const v1::Limits& limits) {
  KBENCH_RETURN_IF_ERROR(CheckName(field, kernel.name()));
  if (kernel.language() != v1::KERNEL_LANGUAGE_CUDA_CPP &&
      kernel.language() != v1::KERNEL_LANGUAGE_PTX)
    return absl::InvalidArgumentError(absl::StrCat(
        field, ".language must be KERNEL_LANGUAGE_CUDA_CPP or KERNEL_LANGUAGE_PTX, got ",
        int(kernel.language())));
  if (kernel.source().empty() || kernel.source().size() > limits.max_kernel_source_bytes())
    return absl::InvalidArgumentError(
        absl::StrCat(field, ".source must be 1 to ", limits.max_kernel_source_bytes(),
                     " bytes (Limits.max_kernel_source_bytes), got ", kernel.source().size()));
  if (kernel.source().find('\0') != std::string::npos)
    return absl::InvalidArgumentError(
        absl::StrCat(field, ".source must be text: it holds a NUL byte"));
  if (kernel.language() == v1::KERNEL_LANGUAGE_CUDA_CPP)
    KBENCH_RETURN_IF_ERROR(CheckKernelIncludes(absl::StrCat(field, ".source"), kernel.source()));
  KBENCH_RETURN_IF_ERROR(CheckEntry(field, kernel.entry()));
  KBENCH_RETURN_IF_ERROR(CheckOptions(field, kernel));
  std::vector<proto::ops::LaunchExpression> grid, block, shared;
  return ParseLaunch(field, kernel.launch(), abi, false, &grid, &block, &shared);
}

absl::Status CheckCompileRequest(const v1::CompileKernelRequest& request,
                                 const v1::Limits& limits) {
  const proto::ops::KernelAbi* abi = proto::ops::AbiOf(request.op());
  if (abi == nullptr)
    return absl::InvalidArgumentError(
        absl::StrCat("op: no kernel ABI for '", request.op().substr(0, 64),
                     "'; learners' kernels are taken for vector_add and attention"));
  if (request.dtype() != v1::DTYPE_UNSPECIFIED && !v1::DType_IsValid(request.dtype()))
    return absl::InvalidArgumentError(absl::StrCat("dtype: unknown value ", int(request.dtype())));
  const kernels::DType dtype = proto::ops::FromProto(request.dtype());
  if (!abi->Supports(dtype)) {
    std::vector<std::string> names;
    for (kernels::DType d : abi->dtypes) names.emplace_back(kernels::DTypeName(d));
    return absl::InvalidArgumentError(
        absl::StrCat("dtype ", kernels::DTypeName(dtype), " is not taken by ", abi->op,
                     " kernels; supported: ", absl::StrJoin(names, ", ")));
  }
  return CheckKernelSource("kernel", request.kernel(), *abi, limits);
}

absl::Status AdmitKernels(const v1::RunRequest& request, const proto::ops::Op& op,
                          const v1::Limits& limits, std::string_view backend) {
  if (request.kernels().empty()) return absl::OkStatus();
  if (uint64_t(request.kernels_size()) > limits.max_kernels())
    return absl::InvalidArgumentError(absl::StrCat("kernels: at most ", limits.max_kernels(),
                                                   " per run (Limits.max_kernels), got ",
                                                   request.kernels_size()));
  const proto::ops::KernelAbi* abi = proto::ops::AbiOf(op.name());
  if (abi == nullptr)
    return absl::InvalidArgumentError(
        absl::StrCat("kernels: ", std::string(op.name()), " takes no learner's kernels"));
  if (!abi->Supports(proto::ops::FromProto(request.dtype())))
    return absl::InvalidArgumentError(
        absl::StrCat("kernels: ", std::string(op.name()), " kernels do not take dtype ",
                     kernels::DTypeName(proto::ops::FromProto(request.dtype()))));
  std::vector<std::string> names;
  for (int i = 0; i < request.kernels_size(); ++i) {
    const v1::KernelSource& kernel = request.kernels(i);
    const std::string field = absl::StrCat("kernels[", i, "]");
    KBENCH_RETURN_IF_ERROR(CheckKernelSource(field, kernel, *abi, limits));
    if (op.FindVariant(kernel.name()) != nullptr)
      return absl::InvalidArgumentError(absl::StrCat(
          field, ".name '", kernel.name(), "' is a built-in variant's name; rename the kernel"));
    if (std::find(names.begin(), names.end(), kernel.name()) != names.end())
      return absl::InvalidArgumentError(
          absl::StrCat(field, ".name '", kernel.name(), "' is named twice"));
    names.push_back(kernel.name());
    KBENCH_RETURN_IF_ERROR(EvaluateLaunch(field, kernel, *abi, request).status());
  }
  if (backend != proto::ops::kCudaBackend)
    return absl::FailedPreconditionError(absl::StrCat(
        "kernels: running a learner's kernel needs a GPU, and this server's backend is ",
        std::string(backend),
        "; `kbench compile` (CompileKernel) checks a kernel without running it"));
  return absl::OkStatus();
}

}  // namespace kbench::server
