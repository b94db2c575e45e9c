// The few CUDA driver API entry points the CUDA backend uses to run a
// learner's kernel (learner_launch.h): load a cubin, find its entry, read
// and set its attributes, its occupancy, launch it, unload it. They are
// looked up from the driver through the CUDA runtime
// (cudaGetDriverEntryPointByVersion, the CUDA 12.0 ABI of each but where
// one says otherwise), so nothing
// links libcuda: a build or a test on a machine without a driver loads and
// runs as before, and only the call that needs the driver fails.
//
// Threading: any thread; the table is made once.
#pragma once

#include <cuda.h>
#include <cuda_runtime_api.h>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace kbench::server::worker::backends::cuda {

struct DriverApi {
  CUresult (*cuModuleLoadData)(CUmodule* module, const void* image) = nullptr;
  CUresult (*cuModuleUnload)(CUmodule module) = nullptr;
  CUresult (*cuModuleGetFunction)(CUfunction* function, CUmodule module,
                                  const char* name) = nullptr;
  CUresult (*cuFuncGetAttribute)(int* value, CUfunction_attribute attribute,
                                 CUfunction function) = nullptr;
  CUresult (*cuFuncSetAttribute)(CUfunction function, CUfunction_attribute attribute,
                                 int value) = nullptr;
  // CUDA 12.4's ABI: CUDA_ERROR_INVALID_VALUE past the last parameter.
  CUresult (*cuFuncGetParamInfo)(CUfunction function, size_t index, size_t* offset,
                                 size_t* size) = nullptr;
  CUresult (*cuOccupancyMaxActiveBlocksPerMultiprocessor)(int* blocks, CUfunction function,
                                                          int block_size,
                                                          size_t dynamic_smem) = nullptr;
  CUresult (*cuLaunchKernel)(CUfunction f, unsigned grid_x, unsigned grid_y, unsigned grid_z,
                             unsigned block_x, unsigned block_y, unsigned block_z,
                             unsigned shared_bytes, CUstream stream, void** params,
                             void** extra) = nullptr;
  CUresult (*cuGetErrorName)(CUresult error, const char** name) = nullptr;
};

// The table, looked up on first use; UNAVAILABLE naming the entry point the
// driver did not give.
absl::StatusOr<const DriverApi*> GetDriverApi();

// A failed driver call as a Status, as cuda_status.h makes one of the
// runtime's: the driver's error name, the call, its place; the error's
// number (the runtime's cudaError_t has the same numbers for the errors a
// launch gives: 700 illegal address, 715 illegal instruction, 719 launch
// failure) travels in the payload, so DeviceHealth sees a sticky one.
absl::Status DriverError(const DriverApi& api, CUresult result, const char* call, const char* file,
                         int line);

}  // namespace kbench::server::worker::backends::cuda

#define KBENCH_CU_RETURN_IF_ERROR(api, expr)                                                      \
  do {                                                                                            \
    if (const CUresult kbench_cu_result_ = (expr); kbench_cu_result_ != CUDA_SUCCESS)             \
      return ::kbench::server::worker::backends::cuda::DriverError(api, kbench_cu_result_, #expr, \
                                                                   __FILE__, __LINE__);           \
  } while (0)
