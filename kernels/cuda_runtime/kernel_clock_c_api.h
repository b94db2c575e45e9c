// The kernel clock (kernel_clock.h) behind C entry points, built as the
// shared library libkbench_kernel_clock.so, so that scripts timing kbench's
// peers (tools/bench/cold_timing.py, through ctypes) time a cold call by the
// same device times as kbench's own cold samples.
#pragma once

#include <stddef.h>

extern "C" {

// Arms the process's clock: the work the calling thread enqueues from now
// until kbench_kernel_clock_end is timed. Returns 0, or -1 with the reason
// in `why` (at most `why_bytes`, NUL-terminated) where CUPTI cannot trace
// (no device, or another profiler holds it).
int kbench_kernel_clock_begin(char* why, size_t why_bytes);

// Waits for `stream` (a cudaStream_t; null for the legacy default stream)
// and stores in `ms` the span of the work enqueued since
// kbench_kernel_clock_begin, from the first start to the last end on the
// device. Returns 0, or -1 with the reason in `why`.
int kbench_kernel_clock_end(void* stream, double* ms, char* why, size_t why_bytes);

// Detaches CUPTI, which the spans leave attached for the next one: call it
// after a series of spans, before timing anything else. Returns 0, or -1
// with the reason in `why` (between begin and end, for one).
int kbench_kernel_clock_release(char* why, size_t why_bytes);
}
