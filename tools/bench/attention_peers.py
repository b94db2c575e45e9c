#!/usr/bin/env python3
"""Peers of kbench's attention, measured on the same GPU in the same run.

For each point (attention_grid.py): --grid (the FlashAttention grid, B * N =
16384 tokens, H * d = 2048, d in {64, 128, 256}, N in {512, ..., 16384})
and --shapes "B,H,N,D;..." (e.g. the low-parallelism shapes, where fused
splits its keys), those of --dims only when given, causal and not (--causal),
in each of --dtypes (default every dtype of attention_grid.json), exactly the
points that kbench_attention_bench runs with the same flags (--list prints
them without touching the GPU):
  eager:          TinyGPT's attention in PyTorch eager,
                  softmax((q @ k.transpose(-2, -1)) * scale + mask, -1) @ v,
                  the mask a [N, N] tensor of 0 and -inf above the diagonal
                  (causal only; without it the `+ mask` is left out). fp32
                  matmuls are plain fp32 (torch.backends.cuda.matmul.allow_tf32
                  is False, PyTorch's default); --eager-tf32 adds an
                  `eager-tf32` row with it on.
  sdpa-flash, sdpa-cudnn, sdpa-efficient:
                  F.scaled_dot_product_attention under
                  torch.nn.attention.sdpa_kernel(FLASH_ATTENTION /
                  CUDNN_ATTENTION / EFFICIENT_ATTENTION), is_causal for causal.
                  A backend that refuses a dtype is reported with ms null.
Timed as kbench times its cold samples (cold_timing.py: the L2 emptied
before each call by kbench's own flush, loaded from --l2-flush-lib, and the
call's kernels timed by kbench's kernel clock beside it), in triton's do_bench budget (25 ms warm-up, 100 ms of
samples, at least 3), median. TFLOP/s counts
4 * B * H * N^2 * d, halved for causal, as kbench does.

q, k, v are drawn as kbench's seeded inputs are (--inputs kbench, the
default): uniform in [-1, 1) in float32 (kbench's are multiples of 2^-23),
then rounded to the dtype, so that every element of at least 2^-12 keeps a
full mantissa. --inputs torch-rand draws them as this script once did:
torch.rand in the dtype, then * 2 - 1 in the dtype, where values near 0 come
from a cancellation and keep fewer mantissa bits. On the H200 the peers took
longer on kbench's inputs at 17 of 20 points, 1.1% in the median
(docs/perf/data/attention_inputs.json, in docs/perf/attention.md), so they
are timed on kbench's. Records carry "inputs". One JSON object a line to
stdout (and --out); a progress line per point on stderr.

--variants narrows the peers run (default all; eager-tf32 only with
--eager-tf32). --once calls each of them once a point and times nothing
(ms null, "once": true): the launch a profiler reads (attention_ncu.sh).
"""
import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import attention_grid  # noqa: E402
import cold_timing  # noqa: E402

# torch and triton are imported by run() only, so that --list works on a
# machine without them (here, before a GPU call).
BACKENDS = ("sdpa-flash", "sdpa-cudnn", "sdpa-efficient")
VARIANTS = ("eager", "eager-tf32") + BACKENDS
INPUTS = ("kbench", "torch-rand")


def draw(torch, inputs, shape, dtype, gen):
    """One of q, k, v, uniform in [-1, 1) as --inputs says (the docstring)."""
    if inputs == "torch-rand":
        return torch.rand(shape, device="cuda", dtype=dtype, generator=gen) * 2 - 1
    x = torch.rand(shape, device="cuda", dtype=torch.float32, generator=gen)
    return (x * 2 - 1).to(dtype)


def eager(F, q, k, v, scale, mask):
    att = (q @ k.transpose(-2, -1)) * scale
    if mask is not None:
        att = att + mask
    att = F.softmax(att, dim=-1)
    return att @ v


def flops(b, h, n, d, causal):
    f = 4.0 * b * h * n * n * d
    return f / 2 if causal else f


def parse_args():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--grid", action="store_true",
                        help="the FlashAttention grid")
    parser.add_argument("--shapes", default="", help="B,H,N,D;... besides it")
    parser.add_argument("--dtypes", default=",".join(attention_grid.DTYPES))
    parser.add_argument("--dims", default="",
                        help="d,...: only the points of these head dims")
    parser.add_argument("--causal", default="both", choices=["0", "1", "both"])
    parser.add_argument("--eager-tf32", action="store_true")
    parser.add_argument("--variants", default=",".join(VARIANTS),
                        help="the peers to run, of " + ", ".join(VARIANTS))
    parser.add_argument("--inputs", default="kbench", choices=INPUTS,
                        help="how q, k and v are drawn (above)")
    parser.add_argument("--once", action="store_true",
                        help="call each peer once a point and time nothing")
    parser.add_argument("--list", action="store_true",
                        help="print the points, one a line, and time nothing")
    parser.add_argument("--l2-flush-lib",
                        help="libkbench_l2_flush.so (the bundle's lib/): kbench's L2 flush, "
                        "before each timed call; needed unless --once or --list")
    parser.add_argument("--out")
    args = parser.parse_args()
    if not (args.once or args.list or args.l2_flush_lib):
        parser.error("--l2-flush-lib is needed to time (or --once, --list)")
    for name in args.dtypes.split(","):
        if name not in attention_grid.DTYPES:
            parser.error(f"unknown dtype {name}")
    for name in args.variants.split(","):
        if name not in VARIANTS:
            parser.error(f"unknown variant {name} (of {', '.join(VARIANTS)})")
    return args


def selected_points(args):
    shapes = attention_grid.grid_shapes() if args.grid else []
    shapes += attention_grid.parse_shapes(args.shapes)
    dims = ({int(d) for d in args.dims.split(",")} if args.dims else None)
    causals = [False, True] if args.causal == "both" else [args.causal == "1"]
    return attention_grid.points(args.dtypes.split(","), shapes, dims, causals)


def run(args, points):
    import torch
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel

    dtypes = {"fp32": torch.float32, "fp16": torch.float16,
              "bf16": torch.bfloat16}
    backends = dict(zip(BACKENDS, (SDPBackend.FLASH_ATTENTION,
                                   SDPBackend.CUDNN_ATTENTION,
                                   SDPBackend.EFFICIENT_ATTENTION)))
    out = open(args.out, "w") if args.out else None
    torch.backends.cuda.matmul.allow_tf32 = False
    print("device:", torch.cuda.get_device_name(0), "torch", torch.__version__,
          file=sys.stderr, flush=True)

    def emit(rec):
        line = json.dumps(rec)
        print(line, flush=True)
        if out:
            out.write(line + "\n")
            out.flush()

    cold = None if args.once else cold_timing.cold_start(args.l2_flush_lib)

    def time_ms(fn):
        return cold_timing.bench_cold(fn, 100, cold, min_samples=3, warmup_calls=1,
                                      warmup_ms=25)["median_ms"]

    start = time.monotonic()
    problem, q, k, v = None, None, None, None  # kept for the causal twin
    for i, point in enumerate(points):
        name, b, h, n, d, causal = point
        dtype = dtypes[name]
        if point[:5] != problem:
            problem, q, k, v = point[:5], None, None, None
            torch.cuda.empty_cache()
            gen = torch.Generator(device="cuda").manual_seed(n * 1000 + d)
            q, k, v = (draw(torch, args.inputs, (b, h, n, d), dtype, gen)
                       for _ in range(3))
        scale = 1.0 / d ** 0.5
        mask = None
        wanted = args.variants.split(",")
        if causal and ("eager" in wanted or "eager-tf32" in wanted):  # eager's alone
            mask = torch.full((n, n), float("-inf"), device="cuda",
                              dtype=dtype).triu(1)

        def run_eager():
            return eager(F, q, k, v, scale, mask)
        variants = [("eager", run_eager)]
        if args.eager_tf32 and dtype == torch.float32:
            variants.append(("eager-tf32", run_eager))
        for label, backend in backends.items():
            def sdpa(backend=backend):
                with sdpa_kernel(backend):
                    return F.scaled_dot_product_attention(
                        q, k, v, is_causal=causal)
            variants.append((label, sdpa))
        times = []
        for label, fn in [v for v in variants if v[0] in wanted]:
            rec = {"source": "torch", "variant": label, "dtype": name,
                   "batch": b, "heads": h, "seq_len": n, "head_dim": d,
                   "causal": causal, "inputs": args.inputs}
            try:
                torch.backends.cuda.matmul.allow_tf32 = label == "eager-tf32"
                fn()
                torch.cuda.synchronize()
                if args.once:
                    rec.update(ms=None, tflops=None, once=True)
                else:
                    ms = time_ms(fn)
                    rec.update(ms=ms, tflops=flops(b, h, n, d, causal)
                               / (ms * 1e-3) / 1e12, cold_method=cold.method)
            except (RuntimeError, torch.OutOfMemoryError) as e:
                rec.update(ms=None, tflops=None,
                           error=str(e).splitlines()[0][:160])
            finally:
                torch.backends.cuda.matmul.allow_tf32 = False
                torch.cuda.empty_cache()
            emit(rec)
            times.append(f"{label} " + ("once" if rec.get("once") else
                                        f"{rec['ms']:.3f} ms" if rec["ms"]
                                        is not None else "n/a"))
        del mask
        print(f"[{i + 1}/{len(points)}] {attention_grid.point_line(point)}: "
              f"{', '.join(times)} ({time.monotonic() - start:.0f} s)",
              file=sys.stderr, flush=True)


def main():
    args = parse_args()
    points = selected_points(args)
    if args.list:
        for point in points:
            print(attention_grid.point_line(point))
        return
    run(args, points)


if __name__ == "__main__":
    main()
