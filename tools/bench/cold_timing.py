"""Cold timing of the PyTorch peers, as kbench times its cold samples.

kbench's cold samples (kernels/cuda_runtime/l2_flusher.h) start from an
empty L2: a buffer of twice its size read through it, then its lines
discarded, so nothing in it is valid or dirty, as after Nsight Compute's
--cache-control all. The peers' scripts (vector_add_peers.py,
vector_add_shapes.py, attention_peers.py) load that same flush from the
bundle's libkbench_l2_flush.so (l2_flush_c_api.h) and time with
bench_cold, so both sides of every comparison start alike. (triton's
do_bench clears by writing its buffer: the dirty lines it leaves cost the
timed call their write-back.)

torch is imported by the functions, so that the scripts' --list and --help
work without it.
"""
import ctypes
import math
import statistics

METHOD = ("CUDA events around each call; before each call the L2 emptied by kbench's "
          "own flush (a buffer of twice its size read, then its lines discarded)")


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


def bench_cold(fn, rep_ms, flush, min_samples=50, max_samples=10000, warmup_calls=10,
               warmup_ms=0):
    """Events around each call of fn, the L2 emptied by `flush` before each
    (METHOD). Calls fn warmup_calls times, 5 more to estimate a call's time,
    and for about warmup_ms, untimed; then times enough calls for about
    rep_ms (within min_samples..max_samples); returns summarize() of them."""
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
    events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
              for _ in range(samples)]
    for s, e in events:
        flush()
        s.record()
        fn()
        e.record()
    torch.cuda.synchronize()
    return summarize([s.elapsed_time(e) for s, e in events])
