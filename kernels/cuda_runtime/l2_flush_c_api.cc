#include "kernels/cuda_runtime/l2_flush_c_api.h"

#include "kernels/cuda_runtime/l2_flush_kernel.h"

extern "C" int kbench_l2_flush(const void* buffer, size_t bytes, unsigned* sink, void* stream) {
  return static_cast<int>(kbench::kernels::cuda_runtime::LaunchL2Flush(
      buffer, bytes, sink, static_cast<cudaStream_t>(stream)));
}
