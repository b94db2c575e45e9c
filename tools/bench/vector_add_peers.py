#!/usr/bin/env python3
"""Peers of kbench's vector add, measured on the same GPU in the same run.

For each n: torch.add(a, b, out=c) on fp32 tensors, timed cold as kbench
times its cold samples (cold_timing.py: the L2 emptied before each call by
kbench's own flush, loaded from --l2-flush-lib, and the call's kernels
timed by kbench's kernel clock, libkbench_kernel_clock.so beside it; the
median of every call, so the relative standard error
can be reported too), and, with --hot-sizes, by
triton.testing.do_bench_cudagraph (back-to-back calls in a CUDA graph, caches
warm). And the device copy bandwidth: dst.copy_(src) of 1 GiB, timed the same
way, counting bytes read plus bytes written.

Throughput counts 12 bytes an element (read a and b, write c), as kbench does.
Writes one JSON object to --out, rewritten after each step so that a run cut
short keeps what it measured.
"""
import argparse
import datetime
import json

import torch
import triton
import triton.testing

from cold_timing import bench_cold, cold_start

COPY_BYTES = 1 << 30


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
    parser.add_argument("--l2-flush-lib", required=True,
                        help="libkbench_l2_flush.so (the bundle's lib/): kbench's L2 flush; "
                        "libkbench_kernel_clock.so beside it times")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    cold = cold_start(args.l2_flush_lib)
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
        "cold_method": cold.method,
        "torch_add": [],
    }

    src = torch.empty(COPY_BYTES, dtype=torch.uint8, device="cuda").fill_(1)
    dst = torch.empty_like(src)
    copy = bench_cold(lambda: dst.copy_(src), args.rep_ms, cold)
    copy["bytes"] = COPY_BYTES
    copy["gbps"] = 2 * COPY_BYTES / (copy["median_ms"] * 1e-3) / 1e9
    result["copy"] = copy
    del src, dst

    def save():  # after each step, so a run cut short keeps what it measured
        with open(args.out, "w") as f:
            json.dump(result, f, indent=1)

    save()

    for n in sizes:
        gen = torch.Generator(device="cuda").manual_seed(n)
        a = torch.rand(n, device="cuda", generator=gen) * 2 - 1
        b = torch.rand(n, device="cuda", generator=gen) * 2 - 1
        c = torch.empty_like(a)

        def add():
            torch.add(a, b, out=c)

        row = {"n": n, "cold": bench_cold(add, args.rep_ms, cold)}
        row["cold"]["gbps"] = 12 * n / (row["cold"]["median_ms"] * 1e-3) / 1e9
        if n in hot_sizes:
            row["hot"] = bench_hot(add)
            row["hot"]["gbps"] = 12 * n / (row["hot"]["median_ms"] * 1e-3) / 1e9
        result["torch_add"].append(row)
        save()
        del a, b, c
        torch.cuda.empty_cache()

    print(f"copy {copy['gbps']:.0f} GB/s; " + "; ".join(
        f"torch.add n={r['n']} {r['cold']['gbps']:.0f} GB/s"
        for r in result["torch_add"]))


if __name__ == "__main__":
    main()
