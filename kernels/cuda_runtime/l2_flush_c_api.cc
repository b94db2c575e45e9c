#include "kernels/cuda_runtime/l2_flush_c_api.h"

#include "kernels/cuda_runtime/l2_flush_kernel.h"

extern "C" size_t kbench_l2_flush_bytes(size_t l2_bytes) {
  return kbench::kernels::cuda_runtime::L2FlushBytes(l2_bytes);
}

extern "C" int kbench_l2_flush(const void* buffer, size_t bytes, unsigned* sink, void* stream) {
  return static_cast<int>(kbench::kernels::cuda_runtime::LaunchL2Flush(
      buffer, bytes, sink, static_cast<cudaStream_t>(stream)));
}
