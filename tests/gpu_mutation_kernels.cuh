// Broken fp32 attention kernels that exist only in the tests: a plain
// one-thread-per-row attention with one injected bug each, to show that the
// device verification (the reference kernel, the comparison kernel and the
// op's tolerances) fails every one of them on the GPU.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels/attention/attention_shape.h"

namespace kbench::testing {

enum class Mutation {
  kNone,            // correct
  kScale,           // softmax scale 1% off
  kOneElement,      // one element of the output wrong
  kLastHeadRow,     // one row of the last batch-head wrong
  kUnwrittenTail,   // the last tile of 64 rows of the last batch-head left as poisoned
  kCausalOffByOne,  // query i also attends to key i + 1
};

// Writes O (fp32) for fp32 Q, K, V, poisoning nothing itself; `o` must be
// poisoned by the caller for kUnwrittenTail to show.
cudaError_t LaunchMutantAttention(const kernels::AttentionShape& shape, const float* q,
                                  const float* k, const float* v, float* o, Mutation mutation,
                                  cudaStream_t stream);

}  // namespace kbench::testing
