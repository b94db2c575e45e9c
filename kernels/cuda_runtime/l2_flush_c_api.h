// The L2 flush (l2_flush_kernel.h) behind a C entry point, built as the
// shared library libkbench_l2_flush.so, so that scripts timing kbench's
// peers (tools/bench/cold_timing.py, through ctypes) empty the L2
// before a cold call exactly as kbench's own cold samples do.
#pragma once

#include <stddef.h>

extern "C" {

// The size in bytes of the buffer kbench_l2_flush needs on a device of
// `l2_bytes` of L2 (cudaDevAttrL2CacheSize), as kbench's own flusher sizes it.
size_t kbench_l2_flush_bytes(size_t l2_bytes);

// Enqueues the flush on `stream` (a cudaStream_t; null for the legacy
// default stream) over `buffer` (device memory of kbench_l2_flush_bytes,
// 128-byte aligned, `bytes` that size) and `sink` (one device
// unsigned). Returns the cudaError_t of the launches (0: none); does not
// wait.
int kbench_l2_flush(const void* buffer, size_t bytes, unsigned* sink, void* stream);
}
