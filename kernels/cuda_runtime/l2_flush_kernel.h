// The L2 flusher's kernels (l2_flusher.h): empty the device's L2 the way
// Nsight Compute's --cache-control all does, with nothing left dirty and
// nothing valid. Two launches on one stream:
//   1. read a buffer of twice the L2's size through the L2 (ld.global.cg):
//      every line the previous work left is evicted, the dirty ones
//      written back, and the L2 fills with the buffer's clean lines;
//   2. discard those lines (discard.global.L2, sm_80 and later): they are
//      invalidated without a write-back, so the L2 holds nothing valid.
// The next kernel starts as after ncu's flush as far as the L2 goes. What
// that is worth, measured (docs/perf/learner_kernels.md, H100): a naive
// vector add of 2^24 floats times 3.0% above ncu's cold duration with this
// flush and with step 1 alone alike; a flush that wrote its buffer
// (cudaMemsetAsync) left dirty lines the kernel wrote back: 16% above.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

namespace kbench::kernels::cuda_runtime {

// The flush buffer's size for a device of `l2_bytes` of L2 (0 when it
// reports none): twice the L2, at least 16 MiB, a multiple of 128.
size_t L2FlushBytes(size_t l2_bytes);

// Enqueues both steps on `stream` and returns the launches' error; does not
// wait. `buffer`: 128-byte aligned (cudaMalloc's are), `bytes` a multiple of
// 128. Its contents are indeterminate after a discard (PTX ISA), so they
// are never relied on: the read kernel writes `sink` (one device unsigned)
// only when what it read XORs to a constant, which it never needs to.
cudaError_t LaunchL2Flush(const void* buffer, size_t bytes, unsigned* sink, cudaStream_t stream);

}  // namespace kbench::kernels::cuda_runtime
