#!/usr/bin/env python3
"""The attention benchmark's points, for the Python side (attention_peers.py,
attention_table.py and attention_gpu.sh). The shapes and dtypes are
attention_grid.json, which is the C++ list (attention_grid.h) as
`kbench_attention_bench --print-grid` prints it: regenerate it with that
command after a change of the list (the ctest attention_bench_points checks
that they agree). attention_gpu.sh also checks that both sides list the same
points (their --list) before it times anything.

A point is (dtype, B, H, N, d, causal); --dtypes and --dims select a subset,
so that one run can be split over calls.

Usage: attention_grid.py low-par   prints the low-parallelism shapes as
                                    "B,H,N,D;..." (the --shapes of both sides)
"""
import json
import os
import sys

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                       "attention_grid.json"), encoding="utf-8") as f:
    _GRID = json.load(f)

DTYPES = tuple(_GRID["dtypes"])
GRID = tuple(tuple(s) for s in _GRID["grid"])
LOW_PAR = tuple(tuple(s) for s in _GRID["low_par"])


def grid_shapes():
    """(B, H, N, d) of the FlashAttention grid, by d then N (the bench's
    order)."""
    return list(GRID)


def on_grid(b, h, n, d):
    return (b, h, n, d) in GRID


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
