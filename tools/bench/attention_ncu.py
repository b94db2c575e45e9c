#!/usr/bin/env python3
"""Nsight Compute's readings of the fused attention kernel, for the misses
of docs/perf/attention.md: tools/bench/attention_ncu.sh runs ncu on the
fused kernel of each missed point, and on the kernel of the peer whose goal
it misses (PEERS), and this file reads what ncu printed; the page's section
"Why the misses miss (ncu)" (attention_table.py render) shows the readings
beside each miss.

What ncu printed (--csv --page raw: a header of metric names, a row of
units, a row per profiled launch; or the details page: a row per metric) is
read leniently: lines that are not CSV (ncu's ==PROF== messages) are
skipped, a bench JSON line among them gives the check's "ok" and the
launch's plan ("fused_plan", which the page compares with its data's: a
reading of another launch is left out), metrics are
picked by name and any of them may be absent (names differ between ncu
versions and chips), and values keep their thousands separators out.

A point's record, one object of attention_ncu.json's "points":
  {"point": "fp16 4 16 4096 128 0", "peer": the peer's variant (only in a
   reading of a peer's kernel), "kernel": the launch's full name,
   "ok": the bench's check and "plan": its fused_plan (when its line was
   read), "metrics": {name:
   number}, "units": {name: unit}, "stalls": the top three [reason, warps
   stalled per issued instruction] ("selected", issuing, is no stall)}
  or {"point": ..., "error": why there is no reading}.

Usage:
  attention_ncu.py parse --point "DTYPE B H N D CAUSAL" [--peer PEER]
                         [--status RC] FILE...
      FILE: ncu's output for that point (its CSV, and its log with the
      bench's JSON line); prints the point's record as one JSON line and a
      summary on stderr. With no launch of the fused kernel (or PEER's) in
      it, the record is an error (naming ncu's exit status RC and its first
      ==ERROR== line) and the exit status 1.
  attention_ncu.py kernels [--peer PEER]
      Prints ncu's --kernel-name filter of the fused kernels (or PEER's).
  attention_ncu.py flags [--known]
      Prints ncu's arguments for a reading, one a line: the sections and
      the full metrics, or (--known) the metrics known to read on the H200.
  attention_ncu.py pack [--command TEXT --gpu NAME --ncu VERSION]
                        --data OUT.json FILE...
      Writes attention_ncu.json {"command", "gpu", "ncu", "points"} from
      FILE: records (*.jsonl) or the attention_ncu.json of another call,
      merged (a point's kernel read twice keeps the later reading; the
      commands of several calls become a list).
"""
import argparse
import csv
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import perf_doc  # noqa: E402

# The fused kernels (not the split-KV combine, nor fp8's V^T pass): the
# launch a record reads.
FUSED = re.compile(r"Fused(Wgmma|Mma|Fp8)Kernel")
# The kernel each peer of attention_peers.py launches, by name (PyTorch
# 2.x on the H200: cudnn_generated_fort_native_sdpa_sm90_flash_fprop_...,
# pytorch_flash::flash_fwd_kernel<...>, fmha_cutlassF_...).
PEERS = {"sdpa-cudnn": re.compile(r"cudnn"),
         "sdpa-flash": re.compile(r"flash_fwd"),
         "sdpa-efficient": re.compile(r"fmha")}


def kernel_pattern(peer=None):
    """The names of the kernel a record reads: the fused kernels, or peer's."""
    if peer is not None and peer not in PEERS:
        raise ValueError(f"no kernel known for the peer {peer} (of {', '.join(PEERS)})")
    return PEERS[peer] if peer else FUSED


STALL = re.compile(
    r"^smsp__average_warps_issue_stalled_(\w+?)_per_issue_active\.ratio$")
NOT_STALLS = {"selected"}

# Each reading: the metrics that may carry it, the first present wins (the
# tensor pipe: the busiest of the pipes wgmma and mma.sync use).
PCT = ".avg.pct_of_peak_sustained_elapsed"
TENSOR = [f"sm__pipe_tensor_op_{p}_cycles_active{PCT}" for p in ("gmma", "hmma")] + [
    f"sm__pipe_tensor_cycles_active{PCT}"]
FMA = [f"sm__pipe_fma_cycles_active{PCT}"]
XU = [f"sm__pipe_xu_cycles_active{PCT}", f"sm__inst_executed_pipe_xu{PCT}"]
ACHIEVED = ["sm__warps_active.avg.pct_of_peak_sustained_active"]
THEORETICAL = ["sm__maximum_warps_per_active_cycle_pct"]
DRAM = [f"gpu__dram_throughput{PCT}", f"dram__throughput{PCT}"]
DURATION = "gpu__time_duration.sum"
SM_ACTIVE, SM_ELAPSED = "sm__cycles_active.avg", "sm__cycles_elapsed.avg"
TO_US = {"ns": 1e-3, "nsecond": 1e-3, "us": 1.0, "usecond": 1.0,
         "ms": 1e3, "msecond": 1e3, "s": 1e6, "second": 1e6}


# What ncu is asked for (after --launch-count 1): the sections, and with
# them the metrics each reading takes ("full"), or only the tensor pipe and
# the stalls, the metrics known to read on the H200 ("known": tried when the
# full set reads no launch).
STALLS_REGEX = r"regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio"
SECTIONS = ["--clock-control", "none", "--launch-count", "1", "--section", "SpeedOfLight",
            "--section", "Occupancy", "--section", "WarpStateStats", "--csv", "--page", "raw"]
FULL_METRICS = [f"sm__pipe_tensor_op_hmma_cycles_active{PCT}", f"sm__pipe_fma_cycles_active{PCT}",
                f"sm__pipe_alu_cycles_active{PCT}", f"sm__pipe_xu_cycles_active{PCT}",
                STALLS_REGEX, "smsp__issue_active.avg.pct_of_peak_sustained_active",
                "sm__warps_active.avg.pct_of_peak_sustained_active",
                "sm__maximum_warps_per_active_cycle_pct", "sm__cycles_active.avg",
                "sm__cycles_elapsed.avg", f"dram__throughput{PCT}", "gpu__time_duration.sum"]
KNOWN_METRICS = [f"sm__pipe_tensor_op_hmma_cycles_active{PCT}", STALLS_REGEX]


def ncu_flags(known=False):
    """ncu's arguments for a reading (attention_ncu.sh's, and
    attention_fp8_gpu.py's), before -k and the program."""
    if known:
        return SECTIONS + ["--metrics", ",".join(KNOWN_METRICS)]
    return SECTIONS + ["--print-units", "base", "--metrics", ",".join(FULL_METRICS)]


def number(text):
    """A metric's value as a float, or None ("n/a", empty, text)."""
    try:
        return float(text.replace(",", ""))
    except (AttributeError, ValueError):
        return None


def launches(text):
    """The profiled launches in ncu's CSV output, in order: each
    {"id", "kernel", "metrics", "units"}."""
    rows = list(csv.reader(line for line in text.splitlines()
                           if line.startswith('"')))
    if not rows or "Kernel Name" not in rows[0]:
        return []
    head = rows[0]
    col = {name: i for i, name in enumerate(head)}
    found = {}

    def launch(r):
        key = r[col["ID"]] if "ID" in col else str(len(found))
        return found.setdefault(key, {"id": key, "kernel": r[col["Kernel Name"]],
                                      "metrics": {}, "units": {}})

    if "Metric Name" in col:  # the details page: a row per metric
        for r in rows[1:]:
            if len(r) != len(head):
                continue
            name, value = r[col["Metric Name"]], number(r[col["Metric Value"]])
            if value is not None:
                launch(r)["metrics"][name] = value
                if "Metric Unit" in col and r[col["Metric Unit"]]:
                    launch(r)["units"][name] = r[col["Metric Unit"]]
        return list(found.values())
    first = col["Kernel Name"] + 1  # the raw page: a column per metric
    while first < len(head) and head[first] in ("Context", "Stream", "Block Size",
                                                "Grid Size", "Device", "CC"):
        first += 1
    units = {}
    for r in rows[1:]:
        if len(r) != len(head):
            continue
        if not r[col["Kernel Name"]]:  # the units row
            units = {head[i]: r[i] for i in range(first, len(head)) if r[i]}
            continue
        entry = launch(r)
        for i in range(first, len(head)):
            value = number(r[i])
            if value is not None:
                entry["metrics"][head[i]] = value
                if head[i] in units:
                    entry["units"][head[i]] = units[head[i]]
    return list(found.values())


def top_stalls(metrics, n=3):
    stalls = [(m.group(1), v) for name, v in metrics.items()
              if (m := STALL.match(name)) and m.group(1) not in NOT_STALLS]
    return [[name, v] for name, v in sorted(stalls, key=lambda s: (-s[1], s[0]))[:n]]


def bench_line(text):
    """The bench's JSON line in ncu's output, {} when there is none."""
    for line in text.splitlines():
        if line.startswith('{"source":"kbench"'):
            try:
                return json.loads(line)
            except ValueError:
                pass
    return {}


# The metrics a record keeps: those the page reads, the stalls, the ALU
# pipe, issue-slot use and the launch's shape (not the hundreds the sections
# print).
ALU = f"sm__pipe_alu_cycles_active{PCT}"
ISSUE = "smsp__issue_active.avg.pct_of_peak_sustained_active"
LAUNCH = ["launch__registers_per_thread", "launch__grid_size", "launch__block_size",
          "launch__shared_mem_per_block_dynamic"]
KEPT = set(TENSOR + FMA + XU + ACHIEVED + THEORETICAL + DRAM + LAUNCH + [
    DURATION, SM_ACTIVE, SM_ELAPSED, ALU, ISSUE])


def kept(name):
    return name in KEPT or STALL.match(name) is not None


def parse(text, point, status=None, peer=None):
    """The record of `point` from ncu's output, of the fused kernel or of
    `peer`'s; ValueError when it holds no launch of that kernel."""
    pattern = kernel_pattern(peer)
    fused = [x for x in launches(text) if pattern.search(x["kernel"])]
    if not fused:
        why = (f"no launch of {peer}'s kernel" if peer else
               "no launch of a fused kernel") + " in ncu's output"
        if status is not None:
            why += f" (exit status {status}{', timed out' if status in (124, 137) else ''})"
        error = next((line.strip() for line in text.splitlines()
                      if line.startswith("==ERROR==")), None)
        raise ValueError(why + (f": {error}" if error else ""))
    x = fused[0]
    metrics = {n: v for n, v in x["metrics"].items() if kept(n)}
    record = {"point": point, "kernel": x["kernel"], "metrics": metrics,
              "units": {n: u for n, u in x["units"].items() if n in metrics},
              "stalls": top_stalls(x["metrics"])}
    if peer:
        record["peer"] = peer
        return record
    line = bench_line(text)
    for key, field in (("ok", "ok"), ("plan", "fused_plan")):
        if line.get(field) is not None:
            record[key] = line[field]
    return record


def pick(metrics, names, best=False):
    values = [metrics[n] for n in names if n in metrics]
    if not values:
        return None
    return max(values) if best else values[0]


def reading(record):
    """The page's figures of one record; None where ncu gave no figure."""
    m = record.get("metrics", {})
    duration = m.get(DURATION)
    unit = record.get("units", {}).get(DURATION, "ns")
    active, elapsed = m.get(SM_ACTIVE), m.get(SM_ELAPSED)
    tensor = pick(m, TENSOR, best=True)
    return {
        "tensor": tensor,
        # An SM's cycles with the tensor pipe busy: the products' cost.
        "tensor_cycles": tensor * elapsed / 100 if tensor is not None and elapsed else None,
        "fma": pick(m, FMA),
        "xu": pick(m, XU),
        "achieved": pick(m, ACHIEVED),
        "theoretical": pick(m, THEORETICAL),
        "dram": pick(m, DRAM),
        "sm_active": 100 * active / elapsed if active is not None and elapsed else None,
        "us": duration * TO_US[unit] if duration is not None and unit in TO_US else None,
        "stalls": record.get("stalls", []),
    }


def short_kernel(name):
    """The kernel's name and template arguments, without namespace and
    parameters (a fused kernel's; another's up to its parameters)."""
    m = re.search(r"Fused\w*Kernel(<[^()]*>)?", name or "")
    return m.group(0) if m else (name or "").split("(")[0]


def _top(r):
    return r["stalls"][0][0] if r["stalls"] else None


def _ge(value, limit):
    return value is not None and value >= limit


# The page's reading rules, the first that holds: (when, reading, test of the
# figures). They restate what the figures say; they measure nothing. The math
# pipe is the busier of tensor and FMA, whichever kernel ran (wgmma, or
# mma.sync).
RULES = [
    ("SMs active < 80% of the elapsed cycles",
     "SMs idle: too few blocks for the GPU, or a tail",
     lambda r: r["sm_active"] is not None and r["sm_active"] < 80),
    ("DRAM ≥ 60%", "DRAM busy: memory traffic is a limit",
     lambda r: _ge(r["dram"], 60)),
    ("tensor or FMA pipe ≥ 70%", "math pipe busy most of the time",
     lambda r: _ge(r["tensor"], 70) or _ge(r["fma"], 70)),
    ("XU pipe ≥ 50%", "XU pipe (exp2 of the softmax) busy half the time or more",
     lambda r: _ge(r["xu"], 50)),
    ("top stall barrier",
     "warps wait at a barrier for the rest of their block (warpgroups for each other)",
     lambda r: _top(r) == "barrier"),
    ("top stall wait",
     "warps wait on fixed-latency dependencies (results of instructions just "
     "issued), not on memory or a full pipe",
     lambda r: _top(r) == "wait"),
    ("top stall long_scoreboard", "warps wait for global memory (L1TEX) results",
     lambda r: _top(r) == "long_scoreboard"),
    ("top stall short_scoreboard or mio_throttle",
     "warps wait on shared memory or XU results (MIO)",
     lambda r: _top(r) in ("short_scoreboard", "mio_throttle")),
    ("otherwise", "no rule: the stalls say where warps wait",
     lambda r: True),
]


def rule(figures):
    return next(text for _, text, holds in RULES if holds(figures))


def summary(record):
    """One line of progress: the kernel, the figures, the reading."""
    if "error" in record:
        return record["error"]
    f = reading(record)
    figures = ", ".join(f"{name} {f[key]:.0f}%" for name, key in (
        ("tensor", "tensor"), ("FMA", "fma"), ("XU", "xu"), ("achieved", "achieved"),
        ("SMs active", "sm_active"), ("DRAM", "dram")) if f[key] is not None)
    stalls = ", ".join(f"{name} {v:.2g}" for name, v in f["stalls"])
    return (f"{short_kernel(record['kernel'])}: {figures}; stalls {stalls}; "
            f"{rule(f)}")


def pack(paths, command=None, gpu=None, version=None):
    points, commands, gpus, versions = {}, [], [], []

    def keep(values, value):
        for v in value if isinstance(value, list) else [value]:
            if v and v not in values:
                values.append(v)

    for path in paths:
        with open(path) as f:
            text = f.read()
        if path.endswith(".json"):
            data = json.loads(text)
            keep(commands, data.get("command"))
            keep(gpus, data.get("gpu"))
            keep(versions, data.get("ncu"))
            records = data["points"]
        else:
            records = [json.loads(line) for line in text.splitlines()
                       if line.startswith("{")]
        for r in records:
            points[(r["point"], r.get("peer"))] = r
    keep(commands, command)
    keep(gpus, gpu)
    keep(versions, version)

    def one(values):
        return values[0] if len(values) == 1 else values

    return {"command": one(commands), "gpu": " and ".join(gpus),
            "ncu": " and ".join(versions), "points": list(points.values())}


def main():
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="what", required=True)
    p = sub.add_parser("parse")
    p.add_argument("--point", required=True)
    p.add_argument("--peer", choices=sorted(PEERS))
    p.add_argument("--status", type=int)
    p.add_argument("files", nargs="+")
    n = sub.add_parser("kernels")
    n.add_argument("--peer", choices=sorted(PEERS))
    f = sub.add_parser("flags")
    f.add_argument("--known", action="store_true")
    k = sub.add_parser("pack")
    k.add_argument("--command")
    k.add_argument("--gpu")
    k.add_argument("--ncu")
    k.add_argument("--data", required=True)
    k.add_argument("files", nargs="+")
    args = parser.parse_args()
    if args.what == "pack":
        perf_doc.save_data(args.data, pack(args.files, args.command, args.gpu,
                                           args.ncu))
        return
    if args.what == "kernels":
        print("regex:" + kernel_pattern(args.peer).pattern)
        return
    if args.what == "flags":
        print("\n".join(ncu_flags(args.known)))
        return
    text = ""
    for path in args.files:
        with open(path, errors="replace") as f:
            text += f.read() + "\n"
    try:
        record, failed = parse(text, args.point, args.status, args.peer), False
    except ValueError as e:
        record, failed = {"point": args.point, "error": str(e)}, True
        if args.peer:
            record["peer"] = args.peer
    print(json.dumps(record, sort_keys=True))
    print(summary(record), file=sys.stderr)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
