#!/usr/bin/env python3
"""docs/perf/attention_fp8.md's generated section, from
docs/perf/data/attention_fp8.json (attention_fp8_gpu.py's output): fused
attention in fp8 beside fp16 and bf16 on one GPU, through the server.

For each shape: each dtype's median time over the rounds (the server's
median of each run; the rounds' lowest and highest in brackets) and its
TFLOP/s (4 B H N^2 d, halved causal, over that median); fp8's speed over
fp16's and over bf16's as the median of the rounds' ratios, with their
lowest and highest; a run that failed verification is marked and counts in
no ratio. Where the data has ncu's readings (attention_fp8_gpu.py --ncu),
a table of them: one fused launch in each dtype, the figures and the
reading rule of attention_ncu.py, as attention.md shows its misses'.

  attention_fp8_table.py render --data DATA.json --doc DOC.md
"""

import statistics

import attention_ncu
import perf_doc

DTYPES = ["fp16", "bf16", "fp8"]


def flops(row, d):
    work = 4 * row["batch"] * row["heads"] * row["seq_len"] ** 2 * d
    return work / 2 if row["causal"] else work


def shape_key(row):
    return (row["batch"], row["heads"], row["seq_len"], row["causal"])


def ratio_text(ratios):
    if not ratios:
        return "n/a"
    return (f"{statistics.median(ratios):.2f} "
            f"({min(ratios):.2f}-{max(ratios):.2f})")


def pct(value):
    return "n/a" if value is None else f"{value:.0f}"


def ncu_lines(ncu):
    """The section of ncu's readings (data["ncu"])."""
    lines = ["", f"Nsight Compute ({ncu['ncu']}, `--clock-control none`) on one fused launch "
             "in each dtype (tools/bench/attention_fp8_gpu.py --ncu): the pipes' busy share of "
             "the elapsed cycles, issue slots busy, occupancy, and the top stalls in warps per "
             "issued instruction; the reading is attention_ncu.py's rule, as in attention.md.",
             "",
             "| point | kernel | µs | tensor pipe % | FMA % | XU % | issue slots % | "
             "achieved / theoretical occupancy % | top stalls | reading |",
             "|---|---|---:|---:|---:|---:|---:|---:|---|---|"]
    for record in ncu["points"]:
        if "error" in record:
            lines.append(f"| {record['point']} | no reading: {record['error']} "
                         "| | | | | | | | |")
            continue
        f = attention_ncu.reading(record)
        issue = record["metrics"].get(attention_ncu.ISSUE)
        stalls = ", ".join(f"{name} {v:.2g}" for name, v in f["stalls"])
        us = "n/a" if f["us"] is None else f"{f['us']:.0f}"
        lines.append(f"| {record['point']} | `{attention_ncu.short_kernel(record['kernel'])}` | "
                     f"{us} | {pct(f['tensor'])} | {pct(f['fma'])} | {pct(f['xu'])} | "
                     f"{pct(issue)} | {pct(f['achieved'])} / {pct(f['theoretical'])} | "
                     f"{stalls or 'n/a'} | {attention_ncu.rule(f)} |")
    return lines


def render(data):
    d = data["head_dim"]
    peer = data.get("peer")
    lines = [f"On {data['device']}, d = {d}, {data['rounds']} rounds, through the server and "
             "the CLI (tools/bench/attention_fp8_gpu.py): `kbench attention --variant fused` "
             "in each dtype, cold (caches flushed before each sample), every run verified "
             "(every element against the device reference).",
             "",
             ("FP8 peer on the machine: " + peer + " (not yet timed here).") if peer else
             "FP8 peer on the machine: none (PyTorch's SDPA takes no fp8 and cuDNN's Python "
             "frontend is not installed), so fp8 is compared with the project's own fp16 "
             "and bf16.",
             "",
             "| shape | fp16 ms | bf16 ms | fp8 ms | fp16 TFLOP/s | bf16 TFLOP/s | "
             "fp8 TFLOP/s | fp8 speed / fp16 | fp8 speed / bf16 |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    shapes = []
    for row in data["rows"]:
        if shape_key(row) not in shapes:
            shapes.append(shape_key(row))
    for key in shapes:
        rows = [r for r in data["rows"] if shape_key(r) == key]
        by = {(r["dtype"], r["round"]): r for r in rows}
        cells, rates = [], []
        for dtype in DTYPES:
            times = [r["median_ms"] for r in rows if r["dtype"] == dtype]
            failed = any(not r["passed"] for r in rows if r["dtype"] == dtype)
            if not times:
                cells.append("n/a")
                rates.append("n/a")
                continue
            median = statistics.median(times)
            cells.append(f"{median:.3f} ({min(times):.3f}-{max(times):.3f})"
                         + (" FAILED verification" if failed else ""))
            rates.append(f"{flops(rows[0], d) / (median * 1e-3) / 1e12:.0f}")
        speed = {}
        for base in ("fp16", "bf16"):
            speed[base] = [by[(base, r)]["median_ms"] / by[("fp8", r)]["median_ms"]
                           for r in range(data["rounds"])
                           if (base, r) in by and ("fp8", r) in by and
                           by[(base, r)]["passed"] and by[("fp8", r)]["passed"]]
        batch, heads, seq, causal = key
        name = f"B {batch}, H {heads}, N {seq}" + (", causal" if causal else "")
        lines.append(f"| {name} | " + " | ".join(cells) + " | " + " | ".join(rates) +
                     f" | {ratio_text(speed['fp16'])} | {ratio_text(speed['bf16'])} |")
    configs = sorted({r["config"] for r in data["rows"] if r["dtype"] == "fp8" and r["config"]})
    if configs:
        lines += ["", "fp8's plan, as the server reported it: " +
                  "; ".join(f"`{c}`" for c in configs) + "."]
    if data.get("ncu"):
        lines += ncu_lines(data["ncu"])
    return "\n".join(lines) + "\n"


def main():
    perf_doc.table_main(render, packs=False)


if __name__ == "__main__":
    main()
