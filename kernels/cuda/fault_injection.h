// A kernel that writes to an illegal address, for the fault-injection test
// of the worker path (kbench.v1.Fault FAULT_ILLEGAL_ADDRESS): the error it
// raises is sticky, so the worker's CUDA context is unusable afterwards and
// the worker must be restarted. Never used outside fault injection.
#pragma once

#include <cuda_runtime_api.h>

namespace kbench::kernels::cuda {

// Enqueues the faulting kernel on `stream`; the fault surfaces at the next
// synchronization.
cudaError_t LaunchIllegalAddressWrite(cudaStream_t stream);

}  // namespace kbench::kernels::cuda
