#include "server/worker/backends/cuda/learner_launch.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "kernels/common/status_macros.h"
#include "kernels/cuda_runtime/cuda_status.h"

namespace kbench::server::worker::backends::cuda {
namespace {

// Dynamic shared memory a block gets without opting in.
constexpr int kDefaultDynamicSharedBytes = 48 * 1024;

}  // namespace

absl::StatusOr<std::unique_ptr<LearnerLaunch>> LearnerLaunch::Load(
    const std::string& field, const LearnerKernel& kernel, int ordinal,
    std::unique_ptr<proto::ops::KernelArgumentPack> arguments) {
  KBENCH_ASSIGN_OR_RETURN(const DriverApi* api, GetDriverApi());
  std::unique_ptr<LearnerLaunch> launch(new LearnerLaunch());
  launch->api_ = api;
  launch->arguments_ = std::move(arguments);
  launch->cubin_ = kernel.cubin;
  launch->entry_ = kernel.entry;
  KBENCH_RETURN_IF_ERROR(launch->LoadModule());
  const CUfunction f = launch->function_;
  int max_threads = 0, registers = 0, static_shared = 0;
  KBENCH_CU_RETURN_IF_ERROR(
      *api, api->cuFuncGetAttribute(&max_threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, f));
  KBENCH_CU_RETURN_IF_ERROR(*api,
                            api->cuFuncGetAttribute(&registers, CU_FUNC_ATTRIBUTE_NUM_REGS, f));
  KBENCH_CU_RETURN_IF_ERROR(
      *api, api->cuFuncGetAttribute(&static_shared, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, f));

  // The compile's ABI check let the entry declare the op's parameters, or
  // those and Triton's hidden scratch pointers, which are passed null.
  size_t declared = 0, offset = 0, bytes = 0;
  while (api->cuFuncGetParamInfo(f, declared, &offset, &bytes) == CUDA_SUCCESS) ++declared;
  const size_t passed = launch->arguments_->size();
  if (declared == passed + proto::ops::kTritonHiddenPointers) {
    launch->arguments_->AppendNullPointers(proto::ops::kTritonHiddenPointers);
  } else if (declared != passed) {
    return absl::InternalError(absl::StrCat(field, ": entry '", kernel.entry, "' declares ",
                                            declared, " parameters; the launch has ", passed));
  }

  int64_t threads = 1;
  for (int i = 0; i < 3; ++i) {
    launch->grid_[i] = unsigned(kernel.grid[size_t(i)]);
    launch->block_[i] = unsigned(kernel.block[size_t(i)]);
    threads *= kernel.block[size_t(i)];
  }
  if (threads > max_threads)
    return absl::InvalidArgumentError(absl::StrCat(
        field, ": launch.block has ", threads, " threads per block; its entry '", kernel.entry,
        "' takes at most ", max_threads,
        " on this device (CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, set by its __launch_bounds__ "
        "or its ",
        registers, " registers per thread)"));

  int optin = 0, threads_per_sm = 0;
  KBENCH_CUDA_RETURN_IF_ERROR(
      cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, ordinal));
  KBENCH_CUDA_RETURN_IF_ERROR(
      cudaDeviceGetAttribute(&threads_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, ordinal));
  const int64_t dynamic = kernel.shared_memory_bytes;
  if (dynamic + static_shared > optin)
    return absl::InvalidArgumentError(
        absl::StrCat(field, ": launch.shared_memory_bytes ", dynamic, " plus the kernel's ",
                     static_shared, " bytes of static shared memory is more than this device's ",
                     optin, " bytes per block (cudaDevAttrMaxSharedMemoryPerBlockOptin)"));
  launch->shared_bytes_ = unsigned(dynamic);
  KBENCH_RETURN_IF_ERROR(launch->OptIntoSharedMemory());

  int blocks_per_sm = 0;
  KBENCH_CU_RETURN_IF_ERROR(*api, api->cuOccupancyMaxActiveBlocksPerMultiprocessor(
                                      &blocks_per_sm, f, int(threads), size_t(dynamic)));
  const int64_t warps = (threads + 31) / 32;
  const double occupancy =
      threads_per_sm > 0 ? double(blocks_per_sm * warps * 32) / double(threads_per_sm) : 0;
  launch->config_ = absl::StrFormat(
      "grid %ux%ux%u block %ux%ux%u smem %d B; %d registers, %d B static smem; "
      "occupancy %.0f%% (%d blocks/SM)",
      launch->grid_[0], launch->grid_[1], launch->grid_[2], launch->block_[0], launch->block_[1],
      launch->block_[2], int(dynamic), registers, static_shared, occupancy * 100, blocks_per_sm);
  return launch;
}

absl::Status LearnerLaunch::LoadModule() {
  KBENCH_CU_RETURN_IF_ERROR(*api_, api_->cuModuleLoadData(&module_, cubin_.data()));
  KBENCH_CU_RETURN_IF_ERROR(*api_, api_->cuModuleGetFunction(&function_, module_, entry_.c_str()));
  return absl::OkStatus();
}

absl::Status LearnerLaunch::OptIntoSharedMemory() {
  if (shared_bytes_ <= unsigned(kDefaultDynamicSharedBytes)) return absl::OkStatus();
  KBENCH_CU_RETURN_IF_ERROR(
      *api_, api_->cuFuncSetAttribute(function_, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                      int(shared_bytes_)));
  return absl::OkStatus();
}

absl::Status LearnerLaunch::Reload() {
  CUmodule old = std::exchange(module_, nullptr);
  function_ = nullptr;
  KBENCH_CU_RETURN_IF_ERROR(*api_, api_->cuModuleUnload(old));
  KBENCH_RETURN_IF_ERROR(LoadModule());
  return OptIntoSharedMemory();
}

LearnerLaunch::~LearnerLaunch() {
  // After a sticky error the context is gone and so is the module: the
  // error is ignored.
  if (module_ != nullptr) api_->cuModuleUnload(module_);
}

absl::Status LearnerLaunch::Enqueue(cudaStream_t stream) {
  KBENCH_CU_RETURN_IF_ERROR(
      *api_, api_->cuLaunchKernel(function_, grid_[0], grid_[1], grid_[2], block_[0], block_[1],
                                  block_[2], shared_bytes_, reinterpret_cast<CUstream>(stream),
                                  arguments_->Params(), nullptr));
  return absl::OkStatus();
}

}  // namespace kbench::server::worker::backends::cuda
