#!/usr/bin/env python3
"""Side-by-side tables of kbench's attention and its peers from one run.

Inputs (any order):
  *.jsonl  JSON lines of kbench_attention_bench (source "kbench") and of
           attention_peers.py (source "torch");
  *.json   one `kbench --json attention ... --variant naive,fused` report
           each (the run through the server).
Joined on (dtype, head_dim, causal, seq_len). Prints Markdown: TFLOP/s
(4 B H N^2 d, halved for causal) of every variant, the server's measured
speedup of fused over naive with its 95% interval, and the ratios the goals
are stated in: fused / sdpa-flash (fp16, bf16), fused / sdpa-efficient
(fp32), naive / eager. A kbench result that failed verification is marked
FAIL. Then a second table with the other tilings of the fused kernels, when
the bench timed them (--mma-configs).
Usage: attention_table.py FILE...
"""
import json
import sys

MAIN = ["naive", "fused", "server-naive", "server-fused", "eager",
        "sdpa-flash", "sdpa-cudnn", "sdpa-efficient"]


def server_rows(report):
    req = report["request"]
    dtype = req["dtype"].replace("DTYPE_", "").lower()
    key = (dtype, int(req["head_dim"]), bool(req["causal"]), int(req["seq_len"]))
    rows = {}
    for r in report.get("results") or []:
        rows["server-" + r["variant"]] = {
            "tflops": r["throughput"]["value"],
            "ok": r["verification"]["passed"],
        }
    for s in (report.get("summary") or {}).get("speedups", []):
        rows["speedup"] = s
    return key, rows


def load(paths):
    table = {}
    for path in paths:
        with open(path) as f:
            text = f.read()
        if path.endswith(".json"):
            try:
                key, rows = server_rows(json.loads(text))
            except (ValueError, KeyError, TypeError) as e:
                print(f"skipping {path}: {e}", file=sys.stderr)
                continue
            table.setdefault(key, {}).update(rows)
            continue
        for line in text.splitlines():
            if not line.startswith("{"):
                continue
            r = json.loads(line)
            key = (r["dtype"], r["head_dim"], r["causal"], r["seq_len"])
            table.setdefault(key, {})[r["variant"]] = r
    return table


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


def speedup(s):
    if not s:
        return ""
    return f"{s['speedup']:.2f} [{s['ci_low']:.2f}, {s['ci_high']:.2f}]"


def main():
    table = load(sys.argv[1:])
    keys = sorted(table)
    print("| dtype | d | causal | N | " + " | ".join(MAIN) +
          " | server fused/naive [95% CI] | fused/flash | fused/efficient"
          " | naive/eager |")
    print("|" + "---|" * (4 + len(MAIN) + 4))
    for key in keys:
        dtype, d, causal, n = key
        v = table[key]
        print(f"| {dtype} | {d} | {'yes' if causal else 'no'} | {n} | " +
              " | ".join(cell(v.get(c)) for c in MAIN) + " | " +
              speedup(v.get("speedup")) + " | " +
              ratio(v.get("fused"), v.get("sdpa-flash")) + " | " +
              ratio(v.get("fused"), v.get("sdpa-efficient")) + " | " +
              ratio(v.get("naive"), v.get("eager")) + " |")
    extra = sorted({c for v in table.values() for c in v
                    if c.startswith("fused-")})
    if extra:
        print()
        print("| dtype | d | causal | N | fused | " + " | ".join(extra) + " |")
        print("|" + "---|" * (5 + len(extra)))
        for key in keys:
            v = table[key]
            if not any(c in v for c in extra):
                continue
            dtype, d, causal, n = key
            print(f"| {dtype} | {d} | {'yes' if causal else 'no'} | {n} | "
                  f"{cell(v.get('fused'))} | " +
                  " | ".join(cell(v.get(c)) for c in extra) + " |")


if __name__ == "__main__":
    main()
