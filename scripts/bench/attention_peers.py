#!/usr/bin/env python3
"""Peers of kbench's attention, measured on the same GPU in the same run.

For each shape of the FlashAttention benchmark grid (B * N = 16384 tokens,
H * d = 2048, d in {64, 128}, N in {512, ..., 16384}), causal and not, in
each --dtypes:
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
--shapes "B,H,N,D;..." replaces the grid by those shapes (as
kbench_attention_bench --shape), e.g. the low-parallelism shapes where fused
splits its keys.
Timed by triton.testing.do_bench (CUDA events around each call, the L2 cleared
before each, 25 ms warm-up, 100 ms of samples), median. TFLOP/s counts
4 * B * H * N^2 * d, halved for causal, as kbench does. q, k, v are
uniform in [-1, 1) like kbench's seeded inputs. One JSON object a line to
stdout (and --out).
"""
import argparse
import json
import sys

import torch
import torch.nn.functional as F
import triton.testing
from torch.nn.attention import SDPBackend, sdpa_kernel

DTYPES = {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}
BACKENDS = {
    "sdpa-flash": SDPBackend.FLASH_ATTENTION,
    "sdpa-cudnn": SDPBackend.CUDNN_ATTENTION,
    "sdpa-efficient": SDPBackend.EFFICIENT_ATTENTION,
}


def eager(q, k, v, scale, mask):
    att = (q @ k.transpose(-2, -1)) * scale
    if mask is not None:
        att = att + mask
    att = F.softmax(att, dim=-1)
    return att @ v


def flops(b, h, n, d, causal):
    f = 4.0 * b * h * n * n * d
    return f / 2 if causal else f


def time_ms(fn):
    return float(triton.testing.do_bench(fn, warmup=25, rep=100,
                                         return_mode="median"))


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--dtypes", default="fp16,fp32")
    parser.add_argument("--head-dims", default="64,128")
    parser.add_argument("--seq-lens", default="512,1024,2048,4096,8192,16384")
    parser.add_argument("--causal", default="both", choices=["0", "1", "both"])
    parser.add_argument("--eager-tf32", action="store_true")
    parser.add_argument("--shapes", default="",
                        help="B,H,N,D;... instead of the grid")
    parser.add_argument("--out")
    args = parser.parse_args()
    out = open(args.out, "w") if args.out else None
    causals = [False, True] if args.causal == "both" else [args.causal == "1"]
    torch.backends.cuda.matmul.allow_tf32 = False
    print("device:", torch.cuda.get_device_name(0), "torch", torch.__version__,
          file=sys.stderr)

    def emit(rec):
        line = json.dumps(rec)
        print(line, flush=True)
        if out:
            out.write(line + "\n")
            out.flush()

    for name in args.dtypes.split(","):
        dtype = DTYPES[name]
        if args.shapes:
            shapes = [tuple(int(x) for x in s.split(","))
                      for s in args.shapes.split(";")]
        else:
            shapes = [(16384 // n, 2048 // d, n, d)
                      for d in (int(x) for x in args.head_dims.split(","))
                      for n in (int(x) for x in args.seq_lens.split(","))]
        for b, h, n, d in shapes:
            gen = torch.Generator(device="cuda").manual_seed(n * 1000 + d)
            q, k, v = (torch.rand(b, h, n, d, device="cuda", dtype=dtype,
                                  generator=gen) * 2 - 1 for _ in range(3))
            scale = 1.0 / d ** 0.5
            for causal in causals:
                mask = None
                if causal:
                    mask = torch.full((n, n), float("-inf"), device="cuda",
                                      dtype=dtype).triu(1)
                def run_eager():
                    return eager(q, k, v, scale, mask)
                variants = [("eager", run_eager)]
                if args.eager_tf32 and dtype == torch.float32:
                    variants.append(("eager-tf32", run_eager))
                for label, backend in BACKENDS.items():
                    def sdpa(backend=backend):
                        with sdpa_kernel(backend):
                            return F.scaled_dot_product_attention(
                                q, k, v, is_causal=causal)
                    variants.append((label, sdpa))
                for label, fn in variants:
                    rec = {"source": "torch", "variant": label,
                           "dtype": name, "batch": b, "heads": h,
                           "seq_len": n, "head_dim": d, "causal": causal}
                    try:
                        torch.backends.cuda.matmul.allow_tf32 = (
                            label == "eager-tf32")
                        fn()
                        torch.cuda.synchronize()
                        ms = time_ms(fn)
                        rec.update(ms=ms, tflops=flops(b, h, n, d, causal)
                                   / (ms * 1e-3) / 1e12)
                    except (RuntimeError, torch.OutOfMemoryError) as e:
                        rec.update(ms=None, tflops=None,
                                   error=str(e).splitlines()[0][:160])
                    finally:
                        torch.backends.cuda.matmul.allow_tf32 = False
                        torch.cuda.empty_cache()
                    emit(rec)
                del mask
            del q, k, v
            torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
