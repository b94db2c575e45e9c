#!/usr/bin/env python3
"""The attention tables of docs/perf/attention.md, generated wholly from one
raw JSON file committed next to it (docs/perf/data/attention.json): the JSON
lines of kbench_attention_bench (source "kbench") and attention_peers.py
(source "torch"), and the `kbench --json attention ... --variant
naive,fused` reports of the same grid, packed with the command that made
them.

Only like-for-like timings share a table: the kernel bench and the peers
are timed the same way (one call at a time, L2 cleared before each, its
kernels' span by kbench's kernel clock, or events in data from before it;
median), so their ratios are computed; the server's runs use the server's
timing (Started.timing_method, samples interleaved) and are shown apart,
with the server's own paired speedup of fused over naive. A kbench result
that failed verification is marked FAIL.

The goals are stated as ratios of those timings (GOALS): each ratio that
misses its goal is marked, and a summary line per goal counts the points
that meet it. Where the points were timed in rounds (attention_gpu.sh's
ROUNDS, the bench's and the peers' alternating), each ratio shows the
range of its rounds' ratios (round i of the one over round i of the
other), and a goal met by the median but not by every round is marked as
met within the rounds' spread, apart from those met beyond it. The
FlashAttention grid and the low-parallelism shapes (attention_grid.py) have
a table each.

Where ncu's readings of the fused kernel at the missed points are given
(--ncu, docs/perf/data/attention_ncu.json, made by attention_ncu.sh), a
section shows them beside each miss, with a reading by stated rules
(attention_ncu.py), where the reading was taken of the launch the data
timed (the same fused plan), and under it the reading of the kernel of the
peer whose goal the point misses, where there is one; without them, it says
there is no data yet.

Where the peers' two input draws are given (--inputs, docs/perf/data/
attention_inputs.json: attention_peers.py --inputs torch-rand and kbench in
one call), a section shows each peer's time on each and their ratio.

Where a sweep of key splits is given (--splits, docs/perf/data/
attention_splits.json: kbench_attention_bench --splits, the data the
split-KV rule's costs were fitted to), a section shows each point's time at
every split, the fastest marked, beside the split the main data's plan took.

Usage:
  attention_table.py pack [--command TEXT] --data DATA.json FILE...
      FILE: *.jsonl (bench and peer lines), *.json (a server report, or the
      DATA.json of another call: a run split over calls is merged into one;
      a point measured twice keeps the later file's result). The *.jsonl
      lines are this call's: a point timed in several rounds (the bench's
      and the peers' alternating, attention_gpu.sh's ROUNDS) keeps the
      median round (median_round).
  attention_table.py render --data DATA.json [--ncu NCU.json]
                            [--splits SPLITS.json] [--inputs INPUTS.json]
                            --doc DOC.md
      Rewrites the generated section of DOC.md (tools/bench/perf_doc.py).
  attention_table.py goals --data DATA.json
      Prints the goals' summary lines.
  attention_table.py misses --data DATA.json [--peers]
      Prints the points that miss a goal, one a line as the bench's --list
      prints them ("fp16 4 16 4096 128 0"), the furthest from its goal first;
      --peers: a line per missed goal, the point and the goal's peer
      ("fp16 4 16 4096 128 0 sdpa-cudnn").
"""
import argparse
import json
import os
import re
import statistics
import sys
from collections import Counter
from dataclasses import dataclass
from typing import Callable

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import attention_grid  # noqa: E402
import attention_ncu  # noqa: E402
import perf_doc  # noqa: E402

NCU_DATA = "docs/perf/data/attention_ncu.json"
SPLITS_DATA = "docs/perf/data/attention_splits.json"
INPUTS_DATA = "docs/perf/data/attention_inputs.json"
PEERS = ["naive", "fused", "eager", "sdpa-flash", "sdpa-cudnn", "sdpa-efficient"]
MISSED = "✗"
WITHIN_SPREAD = "≈"


@dataclass(frozen=True)
class Point:
    dtype: str
    batch: int
    heads: int
    seq_len: int
    head_dim: int
    causal: bool


@dataclass(frozen=True)
class Goal:
    """fused / `peer` >= `at_least` at every point where `applies`; `ratio`
    names it as the tables' column does."""
    ratio: str
    peer: str
    at_least: float
    where: str
    applies: Callable[[Point], bool]


def half(p):
    return p.dtype in ("fp16", "bf16")


GOALS = [
    Goal("fused/flash", "sdpa-flash", 1.3,
         "every fp16 and bf16 point, the low-parallelism shapes included",
         half),
    Goal("fused/cuDNN", "sdpa-cudnn", 1.0,
         "every fp16 and bf16 point, the low-parallelism shapes included",
         half),
    Goal("fused/efficient", "sdpa-efficient", 1.2,
         "every fp32 point, the low-parallelism shapes included",
         lambda p: p.dtype == "fp32"),
]
# The ratio columns: (heading, numerator, denominator); the goals' among them.
RATIOS = [(g.ratio, "fused", g.peer) for g in GOALS] + [
    ("naive/eager", "naive", "eager")]


def point_text(p):
    """The point as the bench's --list prints it: "fp16 4 16 4096 128 0"."""
    return (f"{p.dtype} {p.batch} {p.heads} {p.seq_len} {p.head_dim} "
            f"{int(p.causal)}")


def point_of(r):
    return Point(r["dtype"], int(r["batch"]), int(r["heads"]), int(r["seq_len"]),
                 int(r["head_dim"]), bool(r["causal"]))


def point_of_report(report):
    req = report["request"]
    a = req["attention"]
    return Point(req["dtype"].replace("DTYPE_", "").lower(), int(a["batch"]),
                 int(a["heads"]), int(a["seq_len"]), int(a["head_dim"]),
                 bool(a["causal"]))


def is_packed(obj):
    return isinstance(obj, dict) and "bench" in obj and "server" in obj


def commands_of(data):
    c = data["command"]
    return c if isinstance(c, list) else [c]


def median_round(records):
    """One point's result from its rounds: the record of the median time,
    with every round's time under "rounds_ms". Of an even count, the two
    middle times' mean, the TFLOP/s scaled to it, on the faster's record;
    verified ("ok") only if every round was. A round without a time (a
    peer that refused the point) leaves the last record as it is."""
    last = records[-1]
    if len(records) == 1 or any(r.get("ms") is None for r in records):
        return last
    rounds = sorted(records, key=lambda r: r["ms"])
    middle = rounds[(len(rounds) - 1) // 2]
    ms = middle["ms"]
    if len(rounds) % 2 == 0:
        ms = (ms + rounds[len(rounds) // 2]["ms"]) / 2
    result = dict(middle, ms=ms, rounds_ms=[r["ms"] for r in records])
    if middle.get("tflops") is not None:
        result["tflops"] = middle["tflops"] * middle["ms"] / ms
    if any("ok" in r for r in records):
        result["ok"] = all(r.get("ok", True) for r in records)
    return result


def rounds_of(bench):
    """The most rounds any result of the data was timed in (1 without)."""
    return max((len(r.get("rounds_ms", [])) for r in bench), default=0) or 1


def pack(paths, command=None):
    """One data object from the raw files of one or more calls; a packed
    DATA.json among them is merged in, and a point measured twice keeps the
    later file's result (so a call re-run after another replaces it), but
    the *.jsonl lines of this call keep the median of their rounds."""
    bench, server, commands = {}, {}, []
    rounds = {}  # this call's *.jsonl records of a point, in order

    def add_bench(r, this_call=False):
        key = (r["source"], r["variant"], point_of(r))
        if this_call:
            rounds[key] = rounds.get(key, []) + [r]
            bench[key] = median_round(rounds[key])
        else:  # another call's result: it replaces this call's rounds so far
            rounds[key] = []
            bench[key] = r

    for path in paths:
        with open(path) as f:
            text = f.read()
        if path.endswith(".json"):
            try:
                obj = json.loads(text)
            except ValueError as e:
                print(f"skipping {path}: {e}", file=sys.stderr)
                continue
            if is_packed(obj):
                commands += [c for c in commands_of(obj) if c not in commands]
                for r in obj["bench"]:
                    add_bench(r)
                for report in obj["server"]:
                    server[point_of_report(report)] = report
            else:
                server[point_of_report(obj)] = obj
            continue
        for line in text.splitlines():
            if line.startswith("{"):
                add_bench(json.loads(line), this_call=True)
    if command and command not in commands:
        commands.append(command)
    return {"command": commands[0] if len(commands) == 1 else commands,
            "bench": list(bench.values()), "server": list(server.values())}


def tflops(r):
    return None if r is None else r.get("tflops")


def cell(r):
    if r is None:
        return ""
    if r.get("tflops") is None:
        return "n/a"
    text = f"{r['tflops']:.1f}"
    return text if r.get("ok", True) else text + " FAIL"


def goal_of(point, peer):
    return next((g for g in GOALS if g.peer == peer and g.applies(point)), None)


def ratio_value(variants, num, den):
    """num's TFLOP/s over den's, or None when either has none or the two
    were timed by different clocks (kernel_clock_timed differs: merged
    calls, one timed by events around a call and the other by the
    kernels' own span), which a ratio would mix."""
    rn, rd = variants.get(num), variants.get(den)
    a, b = tflops(rn), tflops(rd)
    if a is None or not b or kernel_clock_timed(rn) != kernel_clock_timed(rd):
        return None
    return a / b


def round_ratios(variants, num, den):
    """num over den round by round (round i's time of den over round i's of
    num), or None when either was not timed in the same two or more
    rounds."""
    a = (variants.get(num) or {}).get("rounds_ms")
    b = (variants.get(den) or {}).get("rounds_ms")
    if not a or not b or len(a) != len(b) or len(a) < 2 or None in a or None in b:
        return None
    return [d / n for n, d in zip(a, b)]


def within_spread(variants, goal):
    """True when the goal is met by the median ratio but not by every
    round's (the rounds' spread reaches below it)."""
    rounds = round_ratios(variants, "fused", goal.peer)
    return bool(meets(variants, goal)) and rounds is not None and min(rounds) < goal.at_least


def meets(variants, goal):
    """True or False, or None when the ratio cannot be formed; a fused
    result that failed verification meets no goal."""
    r = ratio_value(variants, "fused", goal.peer)
    if r is None:
        return None
    return variants["fused"].get("ok", True) and r >= goal.at_least


def missed_goals(bench):
    """{point: [(goal, ratio)]} of the points that miss a goal (meets is
    False: the ratio is under the goal, or fused failed its check)."""
    missed = {}
    for p, variants in bench.items():
        for g in GOALS:
            if "fused" in variants and g.applies(p) and meets(variants, g) is False:
                missed.setdefault(p, []).append(
                    (g, ratio_value(variants, "fused", g.peer)))
    return missed


def misses_worst_first(bench):
    missed = missed_goals(bench)
    return sorted(missed, key=lambda p: (
        min(r / g.at_least for g, r in missed[p]), grid_order(p)))


def ratio_cell(point, variants, num, den):
    r = ratio_value(variants, num, den)
    if r is None:
        return ""
    text = f"{r:.2f}"
    rounds = round_ratios(variants, num, den)
    if rounds is not None:
        text += f" ({min(rounds):.2f}–{max(rounds):.2f})"
    goal = goal_of(point, den) if num == "fused" else None
    if goal is not None and not meets(variants, goal):
        text += f" {MISSED}"
    elif goal is not None and within_spread(variants, goal):
        text += f" {WITHIN_SPREAD}"
    return text


def grid_columns(p):
    return [p.dtype, str(p.head_dim), "yes" if p.causal else "no", str(p.seq_len)]


def shape_columns(p):
    return [p.dtype, str(p.batch), str(p.heads), str(p.seq_len), str(p.head_dim),
            "yes" if p.causal else "no"]


GRID_HEAD = ["dtype", "d", "causal", "N"]
SHAPE_HEAD = ["dtype", "B", "H", "N", "d", "causal"]


def row(cells):
    return "| " + " | ".join(cells) + " |"


def peer_table(points, bench, head, columns):
    """The TFLOP/s of each variant and the ratios, a row per point; the fused
    plan (the bench's "fused_plan") when the data carries it."""
    plans = any("fused_plan" in v.get("fused", {}) for v in bench.values())
    titles = head + PEERS + [t for t, _, _ in RATIOS] + (["fused plan"] if plans else [])
    lines = [row(titles), "|" + "---|" * len(titles)]
    for p in points:
        v = bench[p]
        cells = columns(p) + [cell(v.get(c)) for c in PEERS]
        cells += [ratio_cell(p, v, num, den) for _, num, den in RATIOS]
        if plans:
            cells.append(v.get("fused", {}).get("fused_plan", ""))
        lines.append(row(cells))
    return lines


def goal_summary(bench):
    """A line per goal: at how many of its points it is met, and the worst."""
    lines = []
    for g in GOALS:
        points = sorted((p for p in bench if g.applies(p) and "fused" in bench[p]),
                        key=grid_order)
        results = [(p, meets(bench[p], g)) for p in points]
        met = sum(1 for _, m in results if m)
        unmeasured = sum(1 for _, m in results if m is None)
        ratios = [(ratio_value(bench[p], "fused", g.peer), p)
                  for p, m in results if m is not None]
        text = f"- {g.ratio} ≥ {g.at_least:.1f} ({g.where}): "
        if not points:
            lines.append(text + "no point measured")
            continue
        text += f"met at {met} of {len(points)} points"
        spread = sum(1 for p, m in results if m and within_spread(bench[p], g))
        if spread:
            text += f" ({met - spread} beyond the rounds' spread, {spread} within it)"
        if unmeasured:
            text += f" ({unmeasured} without the peer's figure)"
        if ratios:
            worst, p = min(ratios, key=lambda x: x[0])
            text += (f"; lowest {worst:.2f} ({p.dtype}, B {p.batch}, H {p.heads}, "
                     f"N {p.seq_len}, d {p.head_dim}"
                     f"{', causal' if p.causal else ''})")
        lines.append(text)
    return lines


def bench_by_point(data):
    bench = {}
    for r in data["bench"]:
        bench.setdefault(point_of(r), {})[r["variant"]] = r
    return bench


def kernel_clock_timed(record):
    """True when the record was timed by the kernels' own span on the device
    (its "cold_method" names CUPTI and not its absence); False for CUDA
    events around a call, and for data recorded before that field."""
    m = record.get("cold_method")
    return m is not None and "CUPTI" in m and "no kernel clock" not in m


def cold_timing_words(records):
    """How the kernel bench and the peers timed a call, from the records'
    "cold_method": data recorded before that field was timed by CUDA events
    around one call; records timed both ways are said to be mixed."""
    clock = {kernel_clock_timed(r) for r in records if r.get("ms") is not None}
    if clock == {True}:
        return "the kernels' own span on the device (CUPTI), L2 cleared before each"
    if clock <= {False}:
        return "events around one call, L2 cleared before each"
    return ("MIXED: some calls by events around them, some by the kernels' own span (CUPTI), "
            "L2 cleared before each")


def grid_order(p):
    return (p.dtype, p.head_dim, p.causal, p.seq_len, p.batch, p.heads)


def figure(value, text="{:.0f}"):
    return "" if value is None else text.format(value)


def devices_of(data):
    """The devices the data's server runs were timed on (their started
    events), sorted."""
    return sorted({run.get("started", {}).get("device") for run in data.get("server", [])} -
                  {None})


def peer_comparison(pairs):
    """What the readings of fused and of its peer at the same points say
    together: the ratios of their tensor-pipe cycles and of their times
    under ncu, and the top stall each has most often. `pairs`: (fused
    record, peer record) of attention_ncu.json."""
    ratios = {"cycles": [], "time": []}
    tops = {"fused": Counter(), "peer": Counter()}
    for fused, peer in pairs:
        f, p = attention_ncu.reading(fused), attention_ncu.reading(peer)
        if f["tensor_cycles"] and p["tensor_cycles"]:
            ratios["cycles"].append(f["tensor_cycles"] / p["tensor_cycles"])
        if f["us"] and p["us"]:
            ratios["time"].append(f["us"] / p["us"])
        for side, r in (("fused", f), ("peer", p)):
            if r["stalls"]:
                tops[side][r["stalls"][0][0]] += 1
    if not ratios["cycles"] or not ratios["time"]:
        return []

    def spread(values):
        return f"{min(values):.2f}–{max(values):.2f}"

    def most(side):
        name, count = tops[side].most_common(1)[0]
        return f"`{name}` (at {count} of {sum(tops[side].values())})"
    return ["", f"Where the peer's kernel was read too ({len(pairs)} points): fused's "
            f"tensor-pipe cycles over the peer's {spread(ratios['cycles'])}, its time "
            f"under ncu over the peer's {spread(ratios['time'])}; the top stall most "
            f"often fused's {most('fused')}, the peer's {most('peer')}."]


def ncu_section(bench, ncu, ncu_path, timed_on=()):
    """Why the misses miss: ncu's figures for each missed point measured,
    and the reading rules. `timed_on`: the devices the tables were timed
    on; readings from another say so."""
    lines = ["", "## Why the misses miss (ncu)", ""]
    if ncu is None:
        return lines + [
            f"No ncu data yet: {ncu_path} is written on the GPU machine by "
            "`tools/bench/attention_ncu.sh` (Nsight Compute on the fused "
            "kernel at each missed point)."]
    missed = missed_goals(bench)
    records = {r["point"]: r for r in ncu["points"]
               if "error" not in r and "peer" not in r}
    peers = {(r["point"], r["peer"]): r for r in ncu["points"]
             if "error" not in r and "peer" in r}

    def same_launch(p):
        # The reading is of the launch this data timed: the bench's plan
        # then (the record's "plan") is the data's (both absent counts).
        return (records[point_text(p)].get("plan") ==
                bench[p].get("fused", {}).get("fused_plan"))
    measured = [p for p in missed if point_text(p) in records]
    shown = sorted((p for p in measured if same_launch(p)), key=grid_order)
    other = len(measured) - len(shown)
    no_longer = sum(1 for t in records
                    if t not in {point_text(p) for p in missed})
    peers_shown = sum(1 for p in shown for g, _ in missed[p]
                      if (point_text(p), g.peer) in peers)
    commands = "; ".join(f"`{c}`" for c in commands_of(ncu))
    lines += [f"Nsight Compute on the fused kernel, one launch at each missed "
              "point, and under it (\"peer\") on the kernel of the peer whose "
              f"goal it misses, in the same call, on {ncu.get('gpu') or '?'}"
              f"{' (ncu ' + ncu['ncu'] + ')' if ncu.get('ncu') else ''}: "
              f"{commands}. Pipes and DRAM: % of peak over the elapsed "
              "cycles; tensor kcycles: an SM's cycles with the tensor pipe "
              "busy, thousands (the matrix products' cost); occupancy: "
              "achieved / theoretical warps, %; stalls: warps stalled per "
              "issued instruction; time: the launch under ncu, µs.", ""]
    if timed_on and ncu.get("gpu") and ncu["gpu"] not in timed_on:
        lines += [f"The readings come from another GPU than the tables above "
                  f"({ncu['gpu']}; the tables: {', '.join(timed_on)}): they are "
                  "of the same launches (the plan of each point is the "
                  "data's), and say how the kernel spends them, not how long "
                  "they take on the tables' GPU.", ""]
    text = (f"{len(shown)} of {len(missed)} missed points have a reading, "
            f"{peers_shown} of them with their peer's")
    if len(measured) < len(missed):
        text += (f"; {len(missed) - len(measured)} have none (not measured in that "
                 "run, or ncu gave no reading)")
    if other:
        text += (f"; left out, {other} readings of another launch than this "
                 "data's (their fused plan differs: the kernel or its plan "
                 "changed since; re-run attention_ncu.sh)")
    if no_longer:
        text += (f"; left out, {no_longer} measured points that miss no goal in "
                 "this data")
    lines += [text + ".", ""]
    titles = SHAPE_HEAD + ["missed", "kernel", "µs", "tensor %", "tensor kcycles",
                           "FMA %", "XU %", "occupancy %", "SMs active %", "DRAM %",
                           "top stalls", "reading"]
    lines += [row(titles), "|" + "---|" * len(titles)]

    def reading_row(shape, missed_text, record, kernel):
        f = attention_ncu.reading(record)
        occupancy = (f"{figure(f['achieved'])} / {figure(f['theoretical'])}"
                     if f["achieved"] is not None or f["theoretical"] is not None
                     else "")
        stalls = ", ".join(f"{name} {v:.2g}" for name, v in f["stalls"])
        kcycles = None if f["tensor_cycles"] is None else f["tensor_cycles"] / 1e3
        return row(shape + [
            missed_text, kernel, figure(f["us"]), figure(f["tensor"]), figure(kcycles),
            figure(f["fma"]), figure(f["xu"]), occupancy, figure(f["sm_active"]),
            figure(f["dram"]), stalls, attention_ncu.rule(f)])

    for p in shown:
        record = records[point_text(p)]
        goals = "; ".join(f"{g.ratio} {r:.2f} < {g.at_least:.1f}" if r < g.at_least
                          else f"{g.ratio} {r:.2f}, check FAIL" for g, r in missed[p])
        kernel = f"`{attention_ncu.short_kernel(record.get('kernel'))}`"
        if record.get("ok") is False:
            kernel += " (check FAIL)"
        lines.append(reading_row(shape_columns(p), goals, record, kernel))
        for g, _ in missed[p]:
            peer = peers.get((point_text(p), g.peer))
            if peer is not None:
                lines.append(reading_row(
                    [""] * len(SHAPE_HEAD), f"peer: {g.peer}", peer,
                    f"`{attention_ncu.short_kernel(peer.get('kernel'))}`"))
    lines += peer_comparison(
        [(records[point_text(p)], peers[(point_text(p), g.peer)])
         for p in shown for g, _ in missed[p] if (point_text(p), g.peer) in peers])
    lines += ["", "Reading rules, the first that holds gives the reading (they "
              "restate the figures; they measure nothing more):", ""]
    lines += [f"{i}. {when}: {reading}." for i, (when, reading, _) in
              enumerate(attention_ncu.RULES, 1)]
    return lines


def plan_splits(plan):
    """The splits a fused_plan line says ("split-KV x5: ..." or "one pass")."""
    m = re.match(r"split-KV x(\d+):", plan or "")
    return int(m.group(1)) if m else 1


def splits_section(bench, splits, splits_path, timed_on=()):
    """The sweep of key splits: each point's fused time at every split
    measured (fused-split<S>), the fastest in bold, and the split of the
    main data's plan for the point (its own call). `timed_on`: the tables'
    devices (devices_of); a sweep of another GPU says so."""
    if splits is None:
        return []
    sweep = bench_by_point(splits)
    counts = sorted({int(v[len("fused-split"):]) for pv in sweep.values()
                     for v in pv if v.startswith("fused-split")})
    lines = ["", "## Key splits (the split-KV rule's sweep)", "",
             f"Fused at each number of key splits, ms, one call: `{splits['command']}` "
             f"({splits_path}). The split-KV rule's costs (kernels/cuda/attention/"
             "attention_split_kv.h) were fitted to it; the fastest split is in bold, "
             "and \"plan\" is the split fused ran in the tables above.", ""]
    if timed_on and splits.get("gpu") and not any(splits["gpu"] in d for d in timed_on):
        lines += [f"The sweep comes from another GPU than the tables above "
                  f"({splits['gpu']}; the tables: {', '.join(timed_on)}): compare its "
                  "times with each other, not with the tables'.", ""]
    titles = SHAPE_HEAD + [f"x{c}" for c in counts] + ["fastest", "plan"]
    lines.append(row(titles))
    lines.append("|" + "---|" * len(titles))
    for p in sorted(sweep, key=grid_order):
        v = sweep[p]
        ms = {c: v[f"fused-split{c}"].get("ms") for c in counts if f"fused-split{c}" in v}
        best = min((t, c) for c, t in ms.items() if t is not None)[1] if ms else None
        cells = [("" if c not in ms else f"**{ms[c]:.4f}**" if c == best else f"{ms[c]:.4f}")
                 for c in counts]
        plan = bench.get(p, {}).get("fused", {}).get("fused_plan")
        lines.append(row(shape_columns(p) + cells + [
            "" if best is None else f"x{best}",
            "" if plan is None else f"x{plan_splits(plan)}"]))
    return lines


def inputs_section(inputs, inputs_path):
    """The peers timed on q, k, v drawn both ways (attention_peers.py
    --inputs) in one call: each peer's median over its rounds on each, and
    how much longer it took on kbench's inputs."""
    if inputs is None:
        return []
    times = {}  # (point, variant, inputs): every round's ms
    for r in inputs["bench"]:
        if r.get("ms") is not None:
            times.setdefault((point_of(r), r["variant"], r["inputs"]), []).append(r["ms"])
    points = sorted({k[0] for k in times}, key=grid_order)
    peers = [v for v in PEERS if any(k[1] == v for k in times)]
    lines = ["", "## The peers' inputs", "",
             f"The peers on q, k, v drawn two ways, one call: `{inputs['command']}` "
             f"({inputs_path}; {inputs['gpu']}). Medians of the rounds, ms; "
             "\"kbench / torch-rand\" is the time on kbench's inputs over the time "
             "on torch.rand's (above 1: slower on kbench's).", ""]
    titles = SHAPE_HEAD + [f"{v} {i}" for v in peers
                           for i in ("torch-rand", "kbench", "kbench / torch-rand")]
    lines.append(row(titles))
    lines.append("|" + "---|" * len(titles))
    for p in points:
        cells = []
        for v in peers:
            ms = [statistics.median(times[(p, v, i)]) if (p, v, i) in times else None
                  for i in ("torch-rand", "kbench")]
            cells += [figure(t, "{:.4f}") for t in ms]
            cells.append(figure(ms[1] / ms[0], "{:.3f}") if None not in ms else "")
        lines.append(row(shape_columns(p) + cells))
    return lines


def render(data, ncu=None, ncu_path=NCU_DATA, splits=None, splits_path=SPLITS_DATA,
           inputs=None, inputs_path=INPUTS_DATA):
    """The generated section; `ncu` is attention_ncu.json's data, `splits`
    attention_splits.json's, `inputs` attention_inputs.json's, or None when
    there is none."""
    bench = bench_by_point(data)
    commands = commands_of(data)
    if len(commands) == 1:
        lines = [f"Command: `{commands[0]}`", ""]
    else:
        lines = ["Commands, one GPU call each, merged by `attention_table.py "
                 "pack`:", ""] + [f"- `{c}`" for c in commands] + [""]
    w = lines.append
    grid = sorted((p for p in bench if attention_grid.on_grid(
        p.batch, p.heads, p.seq_len, p.head_dim)), key=grid_order)
    low_par = sorted((p for p in bench if p not in grid), key=grid_order)
    w("## Goals (fused over the peers, timed alike)\n")
    lines += goal_summary(bench)
    n_rounds = rounds_of(data["bench"])
    w(f"\nIn the tables, {MISSED} marks a ratio that misses its goal" +
      (f", and {WITHIN_SPREAD} one that meets it by the median but not in "
       "every round; in brackets, the range of the rounds' ratios.\n"
       if n_rounds > 1 else ".\n"))
    timing = (cold_timing_words(data["bench"]) + ", median; " +
              (f"the median of {n_rounds} rounds, the bench's and the peers' "
               "alternating (of two, their mean); " if n_rounds > 1 else "") +
              "TFLOP/s = 4 B H N^2 d, halved for causal")
    w(f"## Kernels and peers, timed alike ({timing})\n")
    lines += peer_table(grid, bench, GRID_HEAD, grid_columns)
    if low_par:
        w("\n## Low-parallelism shapes, timed alike (same timing)\n")
        lines += peer_table(low_par, bench, SHAPE_HEAD, shape_columns)
    lines += ncu_section(bench, ncu, ncu_path, devices_of(data))
    lines += splits_section(bench, splits, splits_path, devices_of(data))
    lines += inputs_section(inputs, inputs_path)
    # Each other tiling beside the fused of its point, where the two were
    # timed by the same clock (merged calls may hold a tiling from a call
    # before fused's last).
    alike = {p: {c: r for c, r in v.items() if c.startswith("fused-") and (
                 "fused" not in v or kernel_clock_timed(r) == kernel_clock_timed(v["fused"]))}
             for p, v in bench.items()}
    extra = sorted({c for v in alike.values() for c in v})
    stale = sum(1 for v in bench.values() for c in v if c.startswith("fused-")) - sum(
        len(v) for v in alike.values())
    if extra or stale:
        w("\n## Other tilings of the fused kernels (same timing)\n")
    if stale:
        w(f"Left out: {stale} timing{'s' if stale != 1 else ''} of other tilings from a "
          "call before fused's last, by another clock than fused's.\n")
    if extra:
        titles = SHAPE_HEAD + ["fused"] + extra
        w(row(titles))
        w("|" + "---|" * len(titles))
        for p in sorted(bench, key=grid_order):
            if alike[p]:
                w(row(shape_columns(p) + [cell(bench[p].get("fused"))] +
                      [cell(alike[p].get(c)) for c in extra]))
    if data["server"]:
        methods = sorted({(r.get("started") or {}).get("timing_method", "")
                          for r in data["server"]})
        w("\n## Through kbench-server (its own timing: " + "; ".join(methods) +
          "), naive and fused interleaved\n")
        w("| dtype | d | causal | N | naive TFLOP/s | fused TFLOP/s | fused/naive "
          "[CI, confidence], verdict | % of ceiling (which) | verification |")
        w("|---|---|---|---|---|---|---|---|---|")
        for report in sorted(data["server"],
                             key=lambda r: grid_order(point_of_report(r))):
            res = {r["variant"]: r for r in report.get("results") or []}
            sp = ((report.get("summary") or {}).get("speedups") or [None])[0]
            sp_text = (f"{sp['speedup']:.2f} [{sp['ci_low']:.2f}, {sp['ci_high']:.2f}, "
                       f"{100 * sp.get('ci_confidence', 0.95):.1f}%], "
                       f"{sp['verdict'].replace('VERDICT_', '').lower()}" if sp else "")
            fused = res.get("fused", {})
            t = fused.get("throughput", {})
            ver = [r.get("verification", {}) for r in res.values()]
            ok = all(v.get("passed") for v in ver)
            w("| " + " | ".join(grid_columns(point_of_report(report))) + " | " +
              " | ".join(f"{res[v]['throughput']['value']:.1f}" if v in res else ""
                         for v in ("naive", "fused")) +
              f" | {sp_text} | {100 * t.get('fraction_of_ceiling', 0):.1f}% "
              f"({t.get('ceiling', 'none')}) | {'passed' if ok else 'FAIL'}: "
              f"{ver[0].get('method', '') if ver else ''} |")
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="what", required=True)
    p = sub.add_parser("pack")
    p.add_argument("--command", help="the command of this call (a merge of "
                   "packed calls needs none)")
    p.add_argument("--data", required=True)
    p.add_argument("files", nargs="+")
    r = sub.add_parser("render")
    r.add_argument("--data", required=True)
    r.add_argument("--ncu", help="attention_ncu.json (none, or no such file: "
                   "no ncu data yet)")
    r.add_argument("--splits", help="attention_splits.json (none: no section)")
    r.add_argument("--inputs", help="attention_inputs.json (none: no section)")
    r.add_argument("--doc", required=True)
    g = sub.add_parser("goals")
    g.add_argument("--data", required=True)
    m = sub.add_parser("misses")
    m.add_argument("--data", required=True)
    m.add_argument("--peers", action="store_true")
    args = parser.parse_args()
    if args.what == "pack":
        data = pack(args.files, args.command)
        if not data["command"]:
            parser.error("pack: --command is needed (no packed call among FILE)")
        perf_doc.save_data(args.data, data)
        return
    if args.what == "goals":
        print("\n".join(goal_summary(bench_by_point(perf_doc.load_data(args.data)))))
        return
    if args.what == "misses":
        bench = bench_by_point(perf_doc.load_data(args.data))
        missed = missed_goals(bench)
        for p in misses_worst_first(bench):
            if not args.peers:
                print(point_text(p))
            for g, _ in missed[p] if args.peers else []:
                print(point_text(p), g.peer)
        return
    ncu_path = args.ncu or NCU_DATA
    ncu = perf_doc.load_data(args.ncu) if args.ncu else None
    splits_path = args.splits or SPLITS_DATA
    splits = perf_doc.load_data(args.splits) if args.splits else None
    inputs_path = args.inputs or INPUTS_DATA
    inputs = perf_doc.load_data(args.inputs) if args.inputs else None
    text = perf_doc.render_doc(
        args.doc, args.data,
        lambda data: render(data, ncu, ncu_path, splits, splits_path, inputs, inputs_path))
    with open(args.doc, "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
