#!/usr/bin/env python3
"""docs/perf/vector_add_shapes.md's generated section, from
docs/perf/data/vector_add_shapes.json: vector add shapes (an access's width,
accesses per thread, threads per block, cache hints) against torch.add under one timer, as
tools/bench/vector_add_shapes.py measured them on the GPU machine.

  vector_add_shapes_table.py pack --data OUT.json --machine TEXT SHAPES.json
      Packs the JSON line of one vector_add_shapes.py run with a line on the
      machine it ran on.
  vector_add_shapes_table.py render --data DATA.json --doc DOC.md
      Rewrites the generated section of DOC.md (tools/bench/perf_doc.py).
"""
import re
import statistics

import perf_doc

# kbench's vectorized launcher as the server runs it (vector_add_shapes.py's
# "kbench vectorized": its rules choose a shape a size), then the shapes it
# chooses among (one float2 or float4 a thread, 256 threads, plain or
# streaming hints), a column each; n/a where a run lacks one (runs before
# 2026-12-07's second had no kbench row, the first ones no float2).
KBENCH = "kbench vectorized"
KERNEL_SHAPES = [KBENCH] + [f"{access} x1 block=256 {hints}"
                            for access in ("float2", "float4") for hints in ("plain", "streaming")]


def canonical(shape):
    """A shape's name as vector_add_shapes.py names it now. Runs from before
    it swept the access's width (float4 only) named "vecs=V block=B hint"."""
    m = re.fullmatch(r"vecs=(\d+) (block=\d+ \w+)", shape)
    return f"float4 x{m[1]} {m[2]}" if m else shape


def ratios(entries, shape, mode):
    """torch.add's time over the shape's, per round (rounds were run in one
    order for all entries, so round i of each is paired)."""
    if shape not in entries:
        return []
    return [t / s for t, s in zip(entries["torch.add"][mode], entries[shape][mode])]


def render_run(machine, sweep):
    lines = [
        f"Measured on {machine}: {sweep['device']}, PyTorch {sweep['torch']}, "
        f"Triton {sweep['triton']}, {sweep['date_utc'][:16].replace('T', ' ')} UTC. "
        f"Cold: {sweep['cold_method']}; "
        "hot: do_bench_cudagraph. Each figure is a median of "
        f"{sweep['rounds']} rounds (each round a median over {sweep['rep_ms']} ms); "
        "a ratio is torch.add's time over the shape's (above 1: faster than torch.add), "
        "its range the rounds' lowest and highest.",
        "",
        "| n | mode | torch.add us | "
        + "".join(f"{shape} / torch | " for shape in KERNEL_SHAPES)
        + "best shape | best / torch |",
        "|---|---|---:|" + "---:|" * len(KERNEL_SHAPES) + "---|---:|",
    ]

    def cell(r):
        return f"{statistics.median(r):.3f} ({min(r):.3f}-{max(r):.3f})" if r else "n/a"

    for size in sweep["sizes"]:
        entries = {canonical(k): v for k, v in size["entries"].items()}
        shapes = [k for k in entries if k != "torch.add" and not k.startswith("kbench ")]
        for mode in ("cold", "hot"):
            torch_us = statistics.median(entries["torch.add"][mode]) * 1e3
            best = max(shapes, key=lambda k: statistics.median(ratios(entries, k, mode)))
            lines.append(
                f"| 2^{size['n'].bit_length() - 1} | {mode} | {torch_us:.2f} | "
                + "".join(f"{cell(ratios(entries, shape, mode))} | " for shape in KERNEL_SHAPES)
                + f"{best} | {cell(ratios(entries, best, mode))} |")
    return lines


def render(data):
    """One table a run, newest first."""
    runs = sorted(data["runs"], key=lambda run: run["date_utc"], reverse=True)
    lines = []
    for run in runs:
        lines += ([""] if lines else []) + render_run(data["machine"], run)
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    perf_doc.table_main(render)
