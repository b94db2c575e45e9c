#include "kernels/cuda/fault_injection.h"

namespace kbench::kernels::cuda {
namespace {

__global__ void WriteToIllegalAddress(int* address) { *address = 1; }

}  // namespace

cudaError_t LaunchIllegalAddressWrite(cudaStream_t stream) {
  // An address in the first page: never mapped for the device.
  WriteToIllegalAddress<<<1, 1, 0, stream>>>(reinterpret_cast<int*>(16));
  return cudaGetLastError();
}

}  // namespace kbench::kernels::cuda
