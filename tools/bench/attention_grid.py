#!/usr/bin/env python3
"""The attention benchmark's points, for the Python side (attention_peers.py,
attention_table.py and attention_gpu.sh); tools/bench/attention_bench.cc's --grid
is the same grid, and attention_gpu.sh checks that both sides list the same
points (their --list) before it times anything.

  the FlashAttention grid: B * N = 16384 tokens, H * d = 2048,
      N in {512, ..., 16384}, d in {64, 128, 256};
  the low-parallelism shapes (issue 12): B * H in 1..8 and N in 1000..8192,
      where the grid's query blocks would leave most SMs idle; odd N
      (1000, 3000, 5000) included, each d twice.

A point is (dtype, B, H, N, d, causal); --dtypes and --dims select a subset,
so that one run can be split over calls.

Usage: attention_grid.py low-par   prints the low-parallelism shapes as
                                    "B,H,N,D;..." (the --shapes of both sides)
"""
import sys

DTYPES = ("fp16", "bf16", "fp32")
TOKENS = 16384
WIDTH = 2048
SEQ_LENS = (512, 1024, 2048, 4096, 8192, 16384)
HEAD_DIMS = (64, 128, 256)
LOW_PAR = ((1, 1, 3000, 128), (1, 4, 4096, 128), (2, 4, 1000, 64),
           (1, 8, 8192, 64), (1, 2, 5000, 256), (1, 1, 8192, 256))


def grid_shapes():
    """(B, H, N, d) of the grid, by d then N (kbench_attention_bench's order)."""
    return [(TOKENS // n, WIDTH // d, n, d) for d in HEAD_DIMS for n in SEQ_LENS]


def on_grid(b, h, n, d):
    return n in SEQ_LENS and b * n == TOKENS and h * d == WIDTH


def format_shapes(shapes):
    return ";".join(",".join(str(x) for x in s) for s in shapes)


def parse_shapes(text):
    """"B,H,N,D;..." -> [(B, H, N, D), ...]; "" -> []."""
    return [tuple(int(x) for x in s.split(",")) for s in text.split(";") if s]


def points(dtypes, shapes, dims, causals):
    """The points in the order both sides run them: dtype, then shape, then
    causal; with dims (not None), shapes whose d is not in it are left out."""
    return [(dtype, b, h, n, d, causal)
            for dtype in dtypes
            for b, h, n, d in shapes if dims is None or d in dims
            for causal in causals]


def point_line(point):
    """One point as both sides' --list prints it: "fp16 32 32 512 64 0"."""
    dtype, b, h, n, d, causal = point
    return f"{dtype} {b} {h} {n} {d} {int(causal)}"


if __name__ == "__main__":
    if sys.argv[1:] != ["low-par"]:
        sys.exit(__doc__)
    print(format_shapes(LOW_PAR))
