#!/usr/bin/env python3
"""docs/perf/attention_trials.md's generated section, from docs/perf/data/
attention_trials.json: changes to the fused attention kernels timed beside
the kernels before them, one trial each (tools/bench/attention_ab.sh: two
builds of kbench_attention_bench in turn over the same points, in rounds, on
one GPU in one call; every run checked by the op's verifier).

  attention_trials_table.py pack --data DATA.json --name NAME --question TEXT \\
      --base TEXT --new TEXT --command TEXT DIR
  attention_trials_table.py render --data DATA.json --doc DOC.md

pack reads DIR's ab_base_R.jsonl and ab_new_R.jsonl (round R, the bench's
JSON lines) and the device from their .err files ("device: ..."), and puts
the trial into DATA (creating it; a trial of the same name is replaced).
The render: for each trial, each point's median time over the rounds on
each side, the new build's speed over the base's (the base's median over
the new's: above 1 is faster) with the range of the rounds' ratios (round R
of the base over round R of the new), whether every run verified, and the
geometric mean of the speeds.
"""

import argparse
import glob
import json
import math
import os
import re
import statistics

import perf_doc

FILE = re.compile(r"ab_(base|new)_(\d+)\.jsonl$")
POINT_FIELDS = ("dtype", "batch", "heads", "seq_len", "head_dim", "causal")
# (rows ordered by dtype, head dim, N, causal, B, H)


def read_trial(directory):
    """(records, device) of DIR: each bench line with its "side" and "round"."""
    records, devices = [], set()
    for path in sorted(glob.glob(os.path.join(directory, "ab_*_*.jsonl"))):
        m = FILE.search(path)
        if not m:
            continue
        side, rnd = m.group(1), int(m.group(2))
        with open(path) as f:
            for line in f:
                line = line.strip()
                if line.startswith("{"):
                    records.append(dict(json.loads(line), side=side, round=rnd))
        err = path[:-len(".jsonl")] + ".err"
        if os.path.exists(err):
            with open(err) as f:
                devices |= {ln.split(":", 1)[1].strip() for ln in f if ln.startswith("device:")}
    if not records:
        raise SystemExit(f"no ab_base_R.jsonl or ab_new_R.jsonl with bench lines in {directory}")
    return records, "; ".join(sorted(devices)) or "not recorded"


def pack(data, name, question, base, new, command, directory):
    records, device = read_trial(directory)
    trial = dict(name=name, question=question, base=base, new=new, command=command,
                 device=device, records=records)
    trials = [t for t in (data or {}).get("trials", []) if t["name"] != name]
    return {"trials": trials + [trial]}


def point_text(p):
    dtype, b, h, n, d, causal = p
    return f"| {dtype} | {b} | {h} | {n} | {d} | {'yes' if causal else 'no'} |"


def trial_table(trial):
    """The rows of one trial and the geometric mean of its speeds."""
    times = {}  # point -> side -> {round: ms}
    verified = {}
    for r in trial["records"]:
        if r.get("variant") != "fused":
            continue
        p = tuple(r[k] for k in POINT_FIELDS)
        if r.get("ms") is not None:
            times.setdefault(p, {}).setdefault(r["side"], {})[r["round"]] = r["ms"]
        verified[p] = verified.get(p, True) and bool(r.get("ok"))
    lines = ["| dtype | B | H | N | d | causal | base ms | new ms | new speed / base "
             "(rounds) | verified |", "|---|---:|---:|---:|---:|---|---:|---:|---:|---|"]
    speeds = []
    for p in sorted(times, key=lambda p: (p[0], p[4], p[3], p[5], p[1], p[2])):
        base, new = times[p].get("base", {}), times[p].get("new", {})
        if not base or not new:
            lines.append(point_text(p) + " " + " | ".join(
                [f"{statistics.median(s.values()):.4f}" if s else "n/a" for s in (base, new)] +
                ["n/a", "yes" if verified[p] else "**no**"]) + " |")
            continue
        mb, mn = statistics.median(base.values()), statistics.median(new.values())
        ok = verified[p]
        rounds = [base[r] / new[r] for r in sorted(set(base) & set(new))]
        speed = f"{mb / mn:.3f}"
        if len(rounds) > 1:
            speed += f" ({min(rounds):.3f}–{max(rounds):.3f})"
        if ok:
            speeds.append(mb / mn)
        lines.append(point_text(p) + f" {mb:.4f} | {mn:.4f} | {speed} | "
                     f"{'yes' if ok else '**no**'} |")
    geomean = math.exp(sum(map(math.log, speeds)) / len(speeds)) if speeds else None
    return lines, geomean, len(speeds)


def render(data):
    lines = []
    for trial in data["trials"]:
        rows, geomean, count = trial_table(trial)
        rounds = len({r["round"] for r in trial["records"]})
        lines += [f"### {trial['name']}", "", trial["question"], "",
                  f"- base: {trial['base']}", f"- new: {trial['new']}",
                  f"- on {trial['device']}, {rounds} round{'s' if rounds != 1 else ''}: "
                  f"`{trial['command']}`", ""] + rows + [""]
        if geomean is not None:
            lines += [f"Geometric mean of the new build's speed over the base's: "
                      f"{geomean:.3f} over {count} verified points.", ""]
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="what", required=True)
    p = sub.add_parser("pack")
    p.add_argument("--data", required=True)
    for flag in ("name", "question", "base", "new", "command"):
        p.add_argument(f"--{flag}", required=True)
    p.add_argument("dir")
    perf_doc.add_render_command(sub)
    args = parser.parse_args()
    if args.what == "pack":
        perf_doc.save_data(args.data, pack(perf_doc.load_data(args.data), args.name,
                                           args.question, args.base, args.new, args.command,
                                           args.dir))
        return
    perf_doc.render_command(args, render)


if __name__ == "__main__":
    main()
