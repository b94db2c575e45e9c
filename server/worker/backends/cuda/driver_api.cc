#include "server/worker/backends/cuda/driver_api.h"

#include "absl/strings/str_cat.h"
#include "kernels/cuda_runtime/cuda_status.h"

namespace kbench::server::worker::backends::cuda {
namespace {

// The ABI version asked of an entry point unless it says otherwise: that of
// CUDA 12.0.
constexpr unsigned kDriverAbiVersion = 12000;

template <typename F>
absl::Status Lookup(const char* symbol, F& function, unsigned version = kDriverAbiVersion) {
  void* pointer = nullptr;
  cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
  const cudaError_t error =
      cudaGetDriverEntryPointByVersion(symbol, &pointer, version, cudaEnableDefault, &found);
  if (error != cudaSuccess || found != cudaDriverEntryPointSuccess || pointer == nullptr) {
    cudaGetLastError();
    return absl::UnavailableError(absl::StrCat("the CUDA driver gave no entry point ", symbol, " (",
                                               cudaGetErrorName(error), ", query result ",
                                               int(found), ")"));
  }
  function = reinterpret_cast<F>(pointer);
  return absl::OkStatus();
}

absl::StatusOr<DriverApi> Load() {
  DriverApi api;
  for (absl::Status status :
       {Lookup("cuModuleLoadData", api.cuModuleLoadData),
        Lookup("cuModuleUnload", api.cuModuleUnload),
        Lookup("cuModuleGetFunction", api.cuModuleGetFunction),
        Lookup("cuFuncGetAttribute", api.cuFuncGetAttribute),
        Lookup("cuFuncSetAttribute", api.cuFuncSetAttribute),
        Lookup("cuFuncGetParamInfo", api.cuFuncGetParamInfo, 12040),
        Lookup("cuOccupancyMaxActiveBlocksPerMultiprocessor",
               api.cuOccupancyMaxActiveBlocksPerMultiprocessor),
        Lookup("cuLaunchKernel", api.cuLaunchKernel), Lookup("cuGetErrorName", api.cuGetErrorName)})
    if (!status.ok()) return status;
  return api;
}

}  // namespace

absl::StatusOr<const DriverApi*> GetDriverApi() {
  static const absl::StatusOr<DriverApi> api = Load();
  if (!api.ok()) return api.status();
  return &*api;
}

absl::Status DriverError(const DriverApi& api, CUresult result, const char* call, const char* file,
                         int line) {
  // CudaError names the runtime's error of the same number and carries it.
  absl::Status status =
      kernels::cuda_runtime::CudaError(cudaError_t(int(result)), call, file, line);
  const char* name = nullptr;
  if (api.cuGetErrorName != nullptr && api.cuGetErrorName(result, &name) == CUDA_SUCCESS &&
      name != nullptr) {
    absl::Status named(status.code(), absl::StrCat(status.message(), " (driver: ", name, ")"));
    status.ForEachPayload(
        [&](absl::string_view url, const absl::Cord& payload) { named.SetPayload(url, payload); });
    return named;
  }
  return status;
}

}  // namespace kbench::server::worker::backends::cuda
