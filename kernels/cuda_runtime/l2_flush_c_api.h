// The L2 flush (l2_flush_kernel.h) behind a C entry point, built as the
// shared library libkbench_l2_flush.so, so that scripts timing kbench's
// peers (tools/bench/vector_add_peers.py, through ctypes) empty the L2
// before a cold call exactly as kbench's own cold samples do.
#pragma once

#include <stddef.h>

extern "C" {

// Enqueues the flush on `stream` (a cudaStream_t; null for the legacy
// default stream) over `buffer` (device memory of twice the L2's size,
// 128-byte aligned, `bytes` a multiple of 128) and `sink` (one device
// unsigned). Returns the cudaError_t of the launches (0: none); does not
// wait.
int kbench_l2_flush(const void* buffer, size_t bytes, unsigned* sink, void* stream);
}
