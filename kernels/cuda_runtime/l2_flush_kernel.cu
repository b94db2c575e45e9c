#include "kernels/cuda_runtime/l2_flush_kernel.h"

namespace kbench::kernels::cuda_runtime {
namespace {

// The sink is written only if the buffer XORs to this, so the compiler
// cannot drop the loads; whether it ever is does not matter.
constexpr unsigned kNever = 0x9e3779b9u;
constexpr size_t kLine = 128;  // the L2's line, the unit of discard.global.L2

__global__ void ReadAllKernel(const uint4* __restrict__ buffer, size_t count,
                              unsigned* __restrict__ sink) {
  unsigned sum = 0;
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += size_t(gridDim.x) * blockDim.x) {
    const uint4 v = __ldcg(buffer + i);  // through the L2, not the L1
    sum ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (sum == kNever) *sink = sum;
}

__global__ void DiscardAllKernel(const char* buffer, size_t lines) {
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < lines;
       i += size_t(gridDim.x) * blockDim.x) {
    asm volatile("discard.global.L2 [%0], 128;" ::"l"(buffer + i * kLine) : "memory");
  }
}

}  // namespace

size_t L2FlushBytes(size_t l2_bytes) {
  // A device that reports no L2 still gets a flush of a plausible size.
  const size_t l2 = l2_bytes > (size_t(8) << 20) ? l2_bytes : size_t(8) << 20;
  return 2 * l2 / kLine * kLine;
}

cudaError_t LaunchL2Flush(const void* buffer, size_t bytes, unsigned* sink, cudaStream_t stream) {
  constexpr int kBlock = 256;
  constexpr int kBlocks = 2048;  // a few waves on any device; threads stride on
  ReadAllKernel<<<kBlocks, kBlock, 0, stream>>>(static_cast<const uint4*>(buffer), bytes / 16,
                                                sink);
  if (const cudaError_t error = cudaGetLastError(); error != cudaSuccess) return error;
  DiscardAllKernel<<<kBlocks, kBlock, 0, stream>>>(static_cast<const char*>(buffer), bytes / kLine);
  return cudaGetLastError();
}

}  // namespace kbench::kernels::cuda_runtime
