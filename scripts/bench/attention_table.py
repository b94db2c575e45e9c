#!/usr/bin/env python3
"""The attention tables of docs/perf/attention.md, generated wholly from one
raw JSON file committed next to it (docs/perf/data/attention.json): the JSON
lines of kbench_attention_bench (source "kbench") and attention_peers.py
(source "torch"), and the `kbench --json attention ... --variant
naive,fused` reports of the same grid, packed with the command that made
them.

Only like-for-like timings share a table: the kernel bench and the peers
are timed the same way (CUDA events around one call, L2 cleared before each,
median), so their ratios are computed; the server's runs use the server's
timing (Started.timing_method, samples interleaved) and are shown apart,
with the server's own paired speedup of fused over naive. A kbench result
that failed verification is marked FAIL.

Usage:
  attention_table.py pack --command TEXT --data DATA.json FILE...
      FILE: *.jsonl (bench and peer lines) or *.json (server reports).
  attention_table.py render --data DATA.json --doc DOC.md
      Rewrites the generated section of DOC.md (scripts/bench/perf_doc.py).
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import perf_doc  # noqa: E402

PEERS = ["naive", "fused", "eager", "sdpa-flash", "sdpa-cudnn", "sdpa-efficient"]


def pack(paths, command):
    data = {"command": command, "bench": [], "server": []}
    for path in paths:
        with open(path) as f:
            text = f.read()
        if path.endswith(".json"):
            try:
                data["server"].append(json.loads(text))
            except ValueError as e:
                print(f"skipping {path}: {e}", file=sys.stderr)
            continue
        data["bench"] += [json.loads(line) for line in text.splitlines()
                          if line.startswith("{")]
    return data


def key_of_report(report):
    req = report["request"]
    shape = req["attention"]
    return (req["dtype"].replace("DTYPE_", "").lower(), int(shape["head_dim"]),
            bool(shape["causal"]), int(shape["seq_len"]))


def cell(r):
    if r is None:
        return ""
    if r.get("tflops") is None:
        return "n/a"
    text = f"{r['tflops']:.1f}"
    return text if r.get("ok", True) else text + " FAIL"


def ratio(a, b):
    if not a or not b or a.get("tflops") is None or not b.get("tflops"):
        return ""
    return f"{a['tflops'] / b['tflops']:.2f}"


def shape(key):
    dtype, d, causal, n = key
    return f"| {dtype} | {d} | {'yes' if causal else 'no'} | {n} | "


def render(data):
    bench = {}
    for r in data["bench"]:
        bench.setdefault((r["dtype"], r["head_dim"], r["causal"], r["seq_len"]),
                         {})[r["variant"]] = r
    lines = [f"Command: `{data['command']}`", ""]
    w = lines.append
    w("## Kernels and peers, timed alike (events around one call, L2 cleared "
      "before each, median; TFLOP/s = 4 B H N^2 d, halved for causal)\n")
    w("| dtype | d | causal | N | " + " | ".join(PEERS) +
      " | fused/flash | fused/efficient | naive/eager |")
    w("|" + "---|" * (4 + len(PEERS) + 3))
    for key in sorted(bench):
        v = bench[key]
        w(shape(key) + " | ".join(cell(v.get(c)) for c in PEERS) + " | " +
          ratio(v.get("fused"), v.get("sdpa-flash")) + " | " +
          ratio(v.get("fused"), v.get("sdpa-efficient")) + " | " +
          ratio(v.get("naive"), v.get("eager")) + " |")
    extra = sorted({c for v in bench.values() for c in v if c.startswith("fused-")})
    if extra:
        w("\n## Other tilings of the fused kernels (same timing)\n")
        w("| dtype | d | causal | N | fused | " + " | ".join(extra) + " |")
        w("|" + "---|" * (5 + len(extra)))
        for key in sorted(bench):
            v = bench[key]
            if any(c in v for c in extra):
                w(shape(key) + f"{cell(v.get('fused'))} | " +
                  " | ".join(cell(v.get(c)) for c in extra) + " |")
    if data["server"]:
        methods = sorted({(r.get("started") or {}).get("timing_method", "")
                          for r in data["server"]})
        w("\n## Through kbench-server (its own timing: " + "; ".join(methods) +
          "), naive and fused interleaved\n")
        w("| dtype | d | causal | N | naive TFLOP/s | fused TFLOP/s | fused/naive "
          "[CI, confidence], verdict | % of ceiling (which) | verification |")
        w("|---|---|---|---|---|---|---|---|---|")
        for report in sorted(data["server"], key=key_of_report):
            res = {r["variant"]: r for r in report.get("results") or []}
            sp = ((report.get("summary") or {}).get("speedups") or [None])[0]
            sp_text = (f"{sp['speedup']:.2f} [{sp['ci_low']:.2f}, {sp['ci_high']:.2f}, "
                       f"{100 * sp.get('ci_confidence', 0.95):.1f}%], "
                       f"{sp['verdict'].replace('VERDICT_', '').lower()}" if sp else "")
            fused = res.get("fused", {})
            t = fused.get("throughput", {})
            ver = [r.get("verification", {}) for r in res.values()]
            ok = all(v.get("passed") for v in ver)
            w(shape(key_of_report(report)) +
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
    p.add_argument("--command", required=True)
    p.add_argument("--data", required=True)
    p.add_argument("files", nargs="+")
    r = sub.add_parser("render")
    r.add_argument("--data", required=True)
    r.add_argument("--doc", required=True)
    args = parser.parse_args()
    if args.what == "pack":
        perf_doc.save_data(args.data, pack(args.files, args.command))
        return
    text = perf_doc.render_doc(args.doc, args.data, render)
    with open(args.doc, "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
