// The fp8 attention kernel's two products alone (attention_fused_fp8.cu's
// operand layouts, without its pipeline or softmax), for
// CudaAttentionFp8.WgmmaProbeComputesSAndPvExactly: one warpgroup loads
// Q (64 x 128), K (128 x 128) and V (128 keys x 128) of E4M3 bytes,
// row-major, into shared memory by ordinary stores in the copy engine's
// 128-byte swizzle (hopper_ptx.cuh), V transposed in Fp8VtKey's order;
// computes S = Q K^T by WgmmaSSFp8, then O = P V by WgmmaRSFp8 with P = S
// rounded to E4M3 in registers (AccumulatorsToFp8A); and writes S and O,
// each 64 x 128 floats row-major, from the accumulators by their
// documented layout. All pointers are device memory.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace kbench::tests {

// cudaErrorNotSupported off a compute capability 9.0 device.
cudaError_t RunWgmmaFp8Probe(const uint8_t* q, const uint8_t* k, const uint8_t* v, float* s,
                             float* o);

}  // namespace kbench::tests
