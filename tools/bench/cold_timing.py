"""Cold timing of the PyTorch peers, as kbench times its cold samples.

kbench's cold samples (kernels/cuda_runtime/sample_timer.h) start from an
empty L2: a buffer of twice its size read through it, then its lines
discarded, so nothing in it is valid or dirty, as after Nsight Compute's
--cache-control all; and a sample is the span of the work on the device by
its own start and end times (kernel_clock.h, from CUPTI), not CUDA events,
which also span the launch's start on the device. The peers' scripts
(vector_add_peers.py, vector_add_shapes.py, attention_peers.py) load that
same flush (libkbench_l2_flush.so, l2_flush_c_api.h) and that same clock
(libkbench_kernel_clock.so beside it, kernel_clock_c_api.h) through
cold_start, and time with bench_cold, so both sides of every comparison
start and are timed alike. Where CUPTI cannot trace (a profiler holds it),
both sides fall back to events and their methods say so. (triton's do_bench
clears by writing its buffer: the dirty lines it leaves cost the timed call
their write-back.)

torch is imported by the functions, so that the scripts' --list and --help
work without it.
"""
import ctypes
import math
import statistics

FLUSH = ("before each call the L2 emptied by kbench's own flush (a buffer of twice its "
         "size read, then its lines discarded)")
CLOCK = "the call's kernels' own start and end times on the device (CUPTI, kbench's kernel clock)"
KERNEL_CLOCK_LIB = "libkbench_kernel_clock.so"


def load_l2_flush(lib_path):
    """(kbench_l2_flush_bytes, kbench_l2_flush) of libkbench_l2_flush.so at
    lib_path, typed as kernels/cuda_runtime/l2_flush_c_api.h declares them:
    (l2_bytes) -> buffer bytes; (buffer, bytes, sink, stream) -> cudaError_t."""
    lib = ctypes.CDLL(lib_path)
    size = lib.kbench_l2_flush_bytes
    size.restype = ctypes.c_size_t
    size.argtypes = [ctypes.c_size_t]
    flush = lib.kbench_l2_flush
    flush.restype = ctypes.c_int
    flush.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p, ctypes.c_void_p]
    return size, flush


def l2_flusher(lib_path):
    """kbench's L2 flush, loaded from lib_path, as a function that enqueues
    it on torch's current stream."""
    import torch
    kbench_l2_flush_bytes, kbench_l2_flush = load_l2_flush(lib_path)
    nbytes = kbench_l2_flush_bytes(
        getattr(torch.cuda.get_device_properties(0), "L2_cache_size", 0))
    buffer = torch.zeros(nbytes, dtype=torch.uint8, device="cuda")
    sink = torch.zeros(1, dtype=torch.int32, device="cuda")

    def flush():
        error = kbench_l2_flush(buffer.data_ptr(), nbytes, sink.data_ptr(),
                                torch.cuda.current_stream().cuda_stream)
        if error:
            raise RuntimeError(f"kbench_l2_flush: CUDA error {error}")
    return flush


def load_kernel_clock(lib_path):
    """(kbench_kernel_clock_begin, kbench_kernel_clock_end,
    kbench_kernel_clock_release) of libkbench_kernel_clock.so at lib_path,
    typed as kernels/cuda_runtime/kernel_clock_c_api.h declares them:
    (why, why_bytes) -> 0 or -1; (stream, &ms, why, why_bytes) -> 0 or -1;
    (why, why_bytes) -> 0 or -1."""
    lib = ctypes.CDLL(lib_path)
    release = lib.kbench_kernel_clock_release
    release.restype = ctypes.c_int
    release.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
    begin = lib.kbench_kernel_clock_begin
    begin.restype = ctypes.c_int
    begin.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
    end = lib.kbench_kernel_clock_end
    end.restype = ctypes.c_int
    end.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_double), ctypes.c_char_p,
                    ctypes.c_size_t]
    return begin, end, release


class KernelClock:
    """kbench's kernel clock, loaded from lib_path: time(fn, stream) is the
    span on the device of the work fn enqueues, in ms; release() detaches
    CUPTI, which time() leaves attached for the next call (attached, it slows
    every launch of the process). Raises RuntimeError, with CUPTI's reason,
    where it cannot trace."""

    def __init__(self, lib_path):
        self._begin, self._end, self._release = load_kernel_clock(lib_path)
        self._why = ctypes.create_string_buffer(512)

    def _failed(self, call):
        return RuntimeError(f"{call}: {self._why.value.decode(errors='replace')}")

    def time(self, fn, stream):
        if self._begin(self._why, len(self._why)) != 0:
            raise self._failed("kbench_kernel_clock_begin")
        ms = ctypes.c_double()
        try:
            fn()
        finally:
            ended = self._end(stream, ctypes.byref(ms), self._why, len(self._why))
        if ended != 0:
            raise self._failed("kbench_kernel_clock_end")
        return ms.value

    def release(self):
        if self._release(self._why, len(self._why)) != 0:
            raise self._failed("kbench_kernel_clock_release")


class ColdStart:
    """How a peer's cold call is prepared and timed: flush() empties the L2
    (kbench's flush), clock is the kernel clock (None where CUPTI cannot
    trace, and events time instead), method says which, for the data."""

    def __init__(self, flush, clock, no_clock=""):
        self.flush, self.clock = flush, clock
        self.method = (f"{CLOCK}; {FLUSH}" if clock else
                       f"CUDA events around each call (no kernel clock: {no_clock}); "
                       f"{FLUSH}")


def cold_start(l2_flush_lib, kernel_clock_lib=None):
    """kbench's flush from l2_flush_lib and its kernel clock from
    kernel_clock_lib (default: libkbench_kernel_clock.so beside the flush's
    library, as the bundle's lib/ holds both); a clock that cannot trace
    leaves events, said in the method."""
    import os
    import torch
    flush = l2_flusher(l2_flush_lib)
    path = kernel_clock_lib or os.path.join(os.path.dirname(os.path.abspath(l2_flush_lib)),
                                            KERNEL_CLOCK_LIB)
    clock = KernelClock(path)
    try:
        # One empty span: whether CUPTI traces here, said once, not per call.
        clock.time(flush, torch.cuda.current_stream().cuda_stream)
        clock.release()
    except RuntimeError as error:
        return ColdStart(flush, None, str(error))
    return ColdStart(flush, clock)


def summarize(times_ms):
    """Median, mean, spread and relative standard error of the samples."""
    times = sorted(float(t) for t in times_ms)
    mean = statistics.fmean(times)
    std = statistics.stdev(times) if len(times) > 1 else 0.0
    return {
        "samples": len(times),
        "median_ms": statistics.median(times),
        "mean_ms": mean,
        "std_ms": std,
        "min_ms": times[0],
        "max_ms": times[-1],
        "rse": std / math.sqrt(len(times)) / mean if mean > 0 else 0.0,
    }


def bench_cold(fn, rep_ms, cold, min_samples=50, max_samples=10000, warmup_calls=10,
               warmup_ms=0):
    """Each call of fn timed cold (cold.method): the L2 emptied by
    cold.flush before it, then the span of its kernels by cold.clock (or
    events around it where there is no clock), one call at a time. Calls fn
    warmup_calls times, 5 more to estimate a call's time, and for about
    warmup_ms, untimed; then times enough calls for about rep_ms (within
    min_samples..max_samples); returns summarize() of them."""
    import torch
    for _ in range(warmup_calls):
        fn()
    torch.cuda.synchronize()
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(5):
        fn()
    end.record()
    torch.cuda.synchronize()
    per_call_ms = max(start.elapsed_time(end) / 5, 1e-3)
    for _ in range(int(warmup_ms / per_call_ms)):
        fn()
    samples = int(min(max_samples, max(min_samples, rep_ms / (per_call_ms + 0.05))))
    times = []
    stream = torch.cuda.current_stream().cuda_stream
    try:
        for _ in range(samples):
            cold.flush()
            if cold.clock:
                times.append(cold.clock.time(fn, stream))
            else:
                s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                s.record()
                fn()
                e.record()
                e.synchronize()
                times.append(s.elapsed_time(e))
    finally:
        if cold.clock:  # CUPTI stays attached across the series, not after it
            cold.clock.release()
    return summarize(times)
