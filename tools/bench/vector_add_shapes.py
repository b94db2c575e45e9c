#!/usr/bin/env python3
"""Vector add shapes against torch.add, under one timer, on the GPU machine.

Loads the shared library built from tools/bench/vector_add_shapes.cu (access
width x accesses per thread x threads per block x cache hints) and times each shape and
torch.add(a, b, out=c) cold as kbench times (cold_timing.py: the L2
emptied before each call by kbench's own flush, --l2-flush-lib, the call
timed by kbench's kernel clock beside it) and hot with triton's
do_bench_cudagraph (back-to-back calls in a CUDA graph), for
each n, in --rounds rounds whose order is shuffled, so drift spreads over
all shapes alike. Each shape's output is checked equal to torch.add's first.
Beside the shapes, kbench's own launchers as the server runs them ("kbench
naive", "kbench vectorized": its rules by size, its grid and tail) are
timed alike, so the shipped kernel and the shapes meet under one timer.
Writes one JSON object to --out, rewritten after each size so that a run cut
short keeps what it measured (medians of each round, per shape and mode)
and prints, per n and mode, the best shapes against torch.add.

  scripts/gpu_check.sh build    # here: bundles .gpu/, with the shapes' library
  python3 tools/bench/vector_add_shapes.py --lib .gpu/lib/libkbench_vector_add_shapes.so \\
    --l2-flush-lib .gpu/lib/libkbench_l2_flush.so --out shapes.json
"""
import argparse
import ctypes
import datetime
import json
import random
import statistics

import torch
import triton
import triton.testing

from cold_timing import bench_cold, cold_start


ACCESS = {1: "float", 2: "float2", 4: "float4"}


HINTS = {"plain": 0, "streaming": 1}
KBENCH = {"kbench naive": 0, "kbench vectorized": 1}  # kbench_shapes_add_kbench's variants


def shapes(widths, vecs, blocks, hints):
    return [(w, v, blk, s) for w in widths for v in vecs for blk in blocks for s in hints]


def name(shape):
    """E.g. "float4 x1 block=256 plain": one float4 of each array a thread."""
    w, v, blk, s = shape
    return f"{ACCESS[w]} x{v} block={blk} {'streaming' if s else 'plain'}"


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lib", required=True,
                        help="libkbench_vector_add_shapes.so (the bundle's lib/)")
    parser.add_argument("--log2-sizes", default="16,18,20,22,24,26,28")
    parser.add_argument("--widths", default="4",
                        help="floats an access: 1 (float), 2 (float2), 4 (float4); e.g. 1,2,4")
    parser.add_argument("--vecs", default="1,2,4,8", help="accesses of each array per thread")
    parser.add_argument("--blocks", default="128,256,512", help="threads per block")
    parser.add_argument("--hints", default="plain,streaming",
                        help="cache hints: plain, streaming or both")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--rep-ms", type=int, default=40)
    parser.add_argument("--l2-flush-lib", required=True,
                        help="libkbench_l2_flush.so (the bundle's lib/): kbench's L2 flush; "
                        "libkbench_kernel_clock.so beside it times")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    cold = cold_start(args.l2_flush_lib)
    lib = ctypes.CDLL(args.lib)
    lib.kbench_shapes_add.restype = ctypes.c_int
    lib.kbench_shapes_add.argtypes = [ctypes.c_int] * 4 + [ctypes.c_void_p] * 3 + [
        ctypes.c_int64, ctypes.c_void_p]
    lib.kbench_shapes_add_kbench.restype = ctypes.c_int
    lib.kbench_shapes_add_kbench.argtypes = [ctypes.c_int] + [ctypes.c_void_p] * 3 + [
        ctypes.c_int64, ctypes.c_void_p]
    try:
        hints = [HINTS[h] for h in args.hints.split(",")]
    except KeyError as e:
        parser.error(f"--hints: {e} is not one of {', '.join(HINTS)}")
    sizes = [1 << int(s) for s in args.log2_sizes.split(",")]
    result = {
        "date_utc": datetime.datetime.now(datetime.timezone.utc).isoformat(),
        "device": torch.cuda.get_device_name(0),
        "torch": torch.__version__,
        "l2_bytes": getattr(torch.cuda.get_device_properties(0), "L2_cache_size", 0),
        "triton": triton.__version__,
        "rounds": args.rounds,
        "rep_ms": args.rep_ms,
        "cold_method": cold.method,
        "sizes": [],
    }
    rng = random.Random(1)
    for n in sizes:
        gen = torch.Generator(device="cuda").manual_seed(n)
        a = torch.rand(n, device="cuda", generator=gen) * 2 - 1
        b = torch.rand(n, device="cuda", generator=gen) * 2 - 1
        c = torch.empty_like(a)
        want = a + b

        def ours(shape):
            w, v, blk, s = shape

            def call():
                err = lib.kbench_shapes_add(w, v, blk, s, a.data_ptr(), b.data_ptr(), c.data_ptr(),
                                           n, torch.cuda.current_stream().cuda_stream)
                if err != 0:
                    raise RuntimeError(f"{name(shape)}: CUDA error {err}")
            return call

        def kbench(key):
            def call():
                err = lib.kbench_shapes_add_kbench(KBENCH[key], a.data_ptr(), b.data_ptr(),
                                                   c.data_ptr(), n,
                                                   torch.cuda.current_stream().cuda_stream)
                if err != 0:
                    raise RuntimeError(f"{key}: CUDA error {err}")
            return call

        def torch_add():
            torch.add(a, b, out=c)

        candidates = {key: kbench(key) for key in KBENCH}
        for shape in shapes([int(w) for w in args.widths.split(",")],
                            [int(v) for v in args.vecs.split(",")],
                            [int(b) for b in args.blocks.split(",")], hints):
            candidates[name(shape)] = ours(shape)
        entries = {"torch.add": torch_add}
        for key, fn in candidates.items():
            c.zero_()
            fn()
            torch.cuda.synchronize()
            if not torch.equal(c, want):
                raise SystemExit(f"n={n} {key}: wrong output")
            entries[key] = fn
        times = {key: {"cold": [], "hot": []} for key in entries}
        for _ in range(args.rounds):
            order = list(entries)
            rng.shuffle(order)
            for key in order:
                fn = entries[key]
                times[key]["cold"].append(bench_cold(fn, args.rep_ms, cold)["median_ms"])
                stream = torch.cuda.Stream()
                with torch.cuda.stream(stream):
                    times[key]["hot"].append(float(triton.testing.do_bench_cudagraph(
                        fn, rep=args.rep_ms, return_mode="median")))
        row = {"n": n, "entries": times}
        result["sizes"].append(row)
        # After each size, so a run cut short keeps the sizes it measured.
        with open(args.out, "w") as f:
            json.dump(result, f)  # one line: vector_add_shapes_table.py pack reads it so
            f.write("\n")
        for mode in ("cold", "hot"):
            med = {k: statistics.median(t[mode]) for k, t in times.items()}
            ref = med["torch.add"]
            best = sorted((k for k in med if k != "torch.add"), key=med.get)[:6]
            best += [k for k in KBENCH if k not in best]
            print(f"n=2^{n.bit_length() - 1} {mode}: torch.add {ref * 1e3:.2f} us; " + "; ".join(
                f"{k} {med[k] * 1e3:.2f} us ({ref / med[k]:.3f}x)" for k in best),
                flush=True)
        del a, b, c, want
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
