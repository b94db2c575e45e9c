#!/usr/bin/env python3
"""Peers of kbench's vector add, measured on the same GPU in the same run.

For each n: torch.add(a, b, out=c) on fp32 tensors, timed cold as kbench
times its cold samples (CUDA events around each call, and before each one the
L2 flushed by reading a buffer of twice its size, which leaves clean lines:
do_bench's own clear writes its buffer, and the dirty lines it leaves cost a
short memory-bound call their write-back; the median of every call, so the
relative standard error can be reported too), and, with --hot-sizes, by
triton.testing.do_bench_cudagraph (back-to-back calls in a CUDA graph, caches
warm). And the device copy bandwidth: dst.copy_(src) of 1 GiB, timed the same
way, counting bytes read plus bytes written.

Throughput counts 12 bytes an element (read a and b, write c), as kbench does.
Writes one JSON object to --out.
"""
import argparse
import datetime
import json
import math
import statistics

import torch
import triton
import triton.testing

COPY_BYTES = 1 << 30


def summarize(times_ms):
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


COLD_METHOD = ("CUDA events around each call; before each call the L2 flushed by reading a "
               "buffer of twice its size, as kbench does")


def bench_cold(fn, rep_ms):
    """Events around each call, the L2 flushed before each by reading a
    buffer twice its size (COLD_METHOD); calls for about rep_ms."""
    l2 = getattr(torch.cuda.get_device_properties(0), "L2_cache_size", 0) or (50 << 20)
    flush = torch.zeros(2 * l2 // 4, dtype=torch.float32, device="cuda")
    for _ in range(10):
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
    samples = int(min(10000, max(50, rep_ms / (per_call_ms + 0.05))))
    events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
              for _ in range(samples)]
    for s, e in events:
        flush.sum()
        s.record()
        fn()
        e.record()
    torch.cuda.synchronize()
    return summarize([s.elapsed_time(e) for s, e in events])


def bench_hot(fn):
    """do_bench_cudagraph: calls back to back in a graph, caches warm."""
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        try:
            ms = triton.testing.do_bench_cudagraph(fn, rep=100,
                                                   return_mode="median")
        except TypeError:
            ms = triton.testing.do_bench_cudagraph(fn, rep=100)
    return {"median_ms": float(ms)}


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="1048576,16777216,268435456",
                        help="comma-separated element counts (cold)")
    parser.add_argument("--hot-sizes", default="1048576",
                        help="comma-separated element counts also timed hot")
    parser.add_argument("--rep-ms", type=int, default=500,
                        help="do_bench's repetition time in ms")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",") if s]
    hot_sizes = {int(s) for s in args.hot_sizes.split(",") if s}

    props = torch.cuda.get_device_properties(0)
    result = {
        "date_utc": datetime.datetime.now(datetime.timezone.utc).isoformat(),
        "device": torch.cuda.get_device_name(0),
        "sm_count": props.multi_processor_count,
        "torch": torch.__version__,
        "triton": triton.__version__,
        "cuda": torch.version.cuda,
        "bytes_formula": "torch.add: 12 * n; copy: 2 * bytes copied",
        "cold_method": COLD_METHOD,
        "torch_add": [],
    }

    src = torch.empty(COPY_BYTES, dtype=torch.uint8, device="cuda").fill_(1)
    dst = torch.empty_like(src)
    copy = bench_cold(lambda: dst.copy_(src), args.rep_ms)
    copy["bytes"] = COPY_BYTES
    copy["gbps"] = 2 * COPY_BYTES / (copy["median_ms"] * 1e-3) / 1e9
    result["copy"] = copy
    del src, dst

    for n in sizes:
        gen = torch.Generator(device="cuda").manual_seed(n)
        a = torch.rand(n, device="cuda", generator=gen) * 2 - 1
        b = torch.rand(n, device="cuda", generator=gen) * 2 - 1
        c = torch.empty_like(a)

        def add():
            torch.add(a, b, out=c)

        row = {"n": n, "cold": bench_cold(add, args.rep_ms)}
        row["cold"]["gbps"] = 12 * n / (row["cold"]["median_ms"] * 1e-3) / 1e9
        if n in hot_sizes:
            row["hot"] = bench_hot(add)
            row["hot"]["gbps"] = 12 * n / (row["hot"]["median_ms"] * 1e-3) / 1e9
        result["torch_add"].append(row)
        del a, b, c
        torch.cuda.empty_cache()

    with open(args.out, "w") as f:
        json.dump(result, f, indent=1)
    print(f"copy {copy['gbps']:.0f} GB/s; " + "; ".join(
        f"torch.add n={r['n']} {r['cold']['gbps']:.0f} GB/s"
        for r in result["torch_add"]))


if __name__ == "__main__":
    main()
