#!/usr/bin/env python3
"""The vector-add tables of docs/perf/vector_add.md, generated wholly from
one raw JSON file committed next to it (docs/perf/data/vector_add.json):
kbench's `--json info`, kbench's `--json vector-add` runs (two repeats of
each size and mode) and vector_add_peers.py's output, packed together with
the command that made them. Every figure is read from that file; nothing is
estimated. kbench is compared with torch.add only within one timing mode
(cold with cold, hot with hot).

The margins the design expects are reported as figures, not asserted by the
tests: cold samples of a problem that fits in the L2 with room (its arrays
at most half of it) and takes DRAM microseconds to read (at least
COLD_MIN_BYTES) are at least COLD_OVER_HOT times the hot ones (the flush
works; a cold sample is the kernel alone, so at smaller n, where the launch
outlasts the reads, cold and hot are level), and the vectorized
kernel's covering grid is within GRID_MARGIN of the best grid of the sweep.

Usage:
  vector_add_table.py pack --dir RAW_DIR --command TEXT --data DATA.json
                           [--grid-log GPU_TESTS_LOG]
      RAW_DIR holds info.json, peers.json and kbench_<n>_<mode>_<repeat>.json
      (what scripts/gpu_check.sh device writes). GPU_TESTS_LOG: the output of
      kbench_gpu_tests, whose grid sweep (gpu_vector_add_grid_test.cc) prints
      "grid sweep: ..." lines.
  vector_add_table.py render --data DATA.json --doc DOC.md
      Rewrites the generated section of DOC.md (tools/bench/perf_doc.py).
"""
import argparse
import glob
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import perf_doc  # noqa: E402

COLD_OVER_HOT = 1.2
COLD_MIN_BYTES = 8 << 20
GRID_MARGIN = 0.03


def load(path):
    with open(path) as f:
        return json.load(f)


def grid_sweep(log_path):
    """{n: {waves: median ms}} from the grid-sweep lines of a GPU test log."""
    sweep = {}
    if log_path and os.path.exists(log_path):
        with open(log_path) as f:
            for line in f:
                m = re.search(r"grid sweep: n=(\d+) waves=(\d+) .*median ([\d.]+) ms", line)
                if m:
                    sweep.setdefault(m[1], {})[m[2]] = float(m[3])
    return sweep


def pack(raw_dir, command, grid_log=None):
    """The raw files of one GPU check as one JSON object."""
    runs = {}
    for path in sorted(glob.glob(os.path.join(raw_dir, "kbench_*_*_*.json"))):
        m = re.match(r"kbench_(\d+)_(cold|hot)_(\d+)\.json", os.path.basename(path))
        if m:
            try:
                runs[f"{m[1]}_{m[2]}_{m[3]}"] = load(path)
            except (json.JSONDecodeError, OSError):
                pass
    return {"command": command,
            "info": load(os.path.join(raw_dir, "info.json")),
            "peers": load(os.path.join(raw_dir, "peers.json")),
            "runs": runs,
            "grid_sweep": grid_sweep(grid_log)}


def by_variant(run):
    return {r["variant"]: r for r in run.get("results", [])}


def fmt(x, digits=0):
    return "n/a" if x is None else f"{x:,.{digits}f}"


def pct(x):
    return "n/a" if x is None else f"{100 * x:.2f}%"



def ratio_cell(ratio, vec, second):
    """kbench vectorized over torch.add, with the interval that kbench's
    median carries (its 95% interval, the same torch.add time) and the
    ratio of the second identical request, where the data has them: e.g.
    "1.020 (1.019-1.021; 1.021)"."""
    if ratio is None:
        return fmt(None)
    stats = vec.get("stats", {})
    median, low, high = (stats.get(k) for k in ("median_ms", "median_ci_low_ms",
                                                 "median_ci_high_ms"))
    extra = []
    if median and low and high:
        extra.append(f"{ratio * median / high:.3f}-{ratio * median / low:.3f}")
    median2 = (second or {}).get("stats", {}).get("median_ms")
    if median and median2:
        extra.append(f"{ratio * median / median2:.3f}")
    return f"{ratio:.3f}" + (f" ({'; '.join(extra)})" if extra else "")

def render(data):
    info, peers = data["info"], data["peers"]
    runs = {}
    for key, run in data["runs"].items():
        n, mode, repeat = key.split("_")
        runs[(int(n), mode, int(repeat))] = run
    torch_rows = {r["n"]: r for r in peers["torch_add"]}
    dev = (info.get("devices") or [{}])[0]
    copy_peer = peers["copy"]["gbps"]

    lines = []
    w = lines.append
    w(f"- Date (UTC): {peers['date_utc']}")
    w(f"- Device: {dev.get('name')} (compute capability "
      f"{dev.get('compute_capability')}, {dev.get('sm_count')} SMs, "
      f"L2 {int(dev.get('l2_bytes', 0)) >> 20} MiB, memory "
      f"{int(dev.get('memory_bytes', 0)) >> 30} GiB, max SM clock "
      f"{fmt(dev.get('max_sm_clock_mhz'))} MHz)")
    w(f"- Ceilings measured by kbench-server at start-up: copy "
      f"{fmt(dev.get('copy_bandwidth_gbps'))} GB/s, L2-resident copy "
      f"{fmt(dev.get('l2_copy_bandwidth_gbps') or None)} GB/s, fp16 matmul "
      f"{fmt(dev.get('matmul_tflops'))} TFLOP/s, bf16 matmul "
      f"{fmt(dev.get('matmul_bf16_tflops') or None)} TFLOP/s")
    w(f"- Peers: PyTorch {peers['torch']}, Triton {peers['triton']}, "
      f"CUDA {peers['cuda']}")
    w(f"- Command: `{data['command']}`")
    w("- Bytes = 3 * n * 4 (read a, b; write c); kbench figures are the first "
      "of two identical requests; medians.")
    keys = sorted({(n, mode) for (n, mode, _) in runs},
                  key=lambda k: (k[0], k[1] != "cold"))
    # Data from before the peers named their cold method was timed by
    # do_bench's own cache clear.
    cold_peer = peers.get("cold_method", "do_bench, its own cache clear before each call")
    for mode, peer_method in (("cold", cold_peer),
                              ("hot", "do_bench_cudagraph, back-to-back launches")):
        timing = next(((r.get("started") or {}).get("timing_method")
                       for (n, m, _), r in sorted(runs.items())
                       if m == mode and r.get("started")), None)
        if timing is None:
            continue
        w(f"\n## {mode.capitalize()}: kbench ({timing}) against torch.add ({peer_method})\n")
        w("| n | kbench naive GB/s | kbench vectorized GB/s | torch.add GB/s "
          "| vectorized / torch (95% interval of kbench's median; second request) "
          "| copy GB/s (torch copy_) | kbench vectorized "
          "median ms | torch.add median ms | RSE naive / vectorized / "
          "torch | verified |")
        w("|---|---|---|---|---|---|---|---|---|---|")
        for n, m in keys:
            run = runs.get((n, m, 1))
            if m != mode or run is None:
                continue
            v = by_variant(run)
            naive, vec = v.get("naive", {}), v.get("vectorized", {})
            peer = torch_rows.get(n, {}).get(mode)
            t_gbps = peer["gbps"] if peer else None
            vec_gbps = vec.get("throughput", {}).get("value")
            ratio = vec_gbps / t_gbps if vec_gbps and t_gbps else None
            second = by_variant(runs[(n, m, 2)]).get("vectorized") if (n, m, 2) in runs else None
            verified = (run.get("summary") or {}).get("all_verified")
            w(f"| {perf_doc.pow2(n)} | "
              f"{fmt(naive.get('throughput', {}).get('value'))} | "
              f"{fmt(vec_gbps)} | {fmt(t_gbps)} | {ratio_cell(ratio, vec, second)} | "
              f"{fmt(copy_peer)} | "
              f"{fmt(vec.get('stats', {}).get('median_ms'), 4)} | "
              f"{fmt(peer['median_ms'] if peer else None, 4)} | "
              f"{pct(naive.get('stats', {}).get('rse'))} / "
              f"{pct(vec.get('stats', {}).get('rse'))} / "
              f"{pct(peer.get('rse') if peer else None)} | "
              f"{'yes' if verified else 'NO'} |")

    w("\n## Each kbench run in detail\n")
    w("| n | mode | variant | median ms, run 1 | run 2 | run 2 vs 1 | "
      "samples | stop | % of ceiling (which) | SM clock MHz | throttled samples | "
      "speedup over naive (CI, confidence), verdict | verification |")
    w("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for n, mode in keys:
        first, second = runs.get((n, mode, 1)), runs.get((n, mode, 2))
        if first is None:
            continue
        speedups = {s["variant"]: s for s in
                    (first.get("summary") or {}).get("speedups", [])}
        v2 = by_variant(second) if second else {}
        for name, r in by_variant(first).items():
            s = r.get("stats", {})
            m1 = s.get("median_ms")
            m2 = v2.get(name, {}).get("stats", {}).get("median_ms")
            drift = (m2 / m1 - 1) if m1 and m2 else None
            c = r.get("clocks", {})
            clock = (f"{c.get('sm_clock_mhz_min', 0):.0f}-"
                     f"{c.get('sm_clock_mhz_max', 0):.0f}"
                     if c.get("available") else "n/a")
            sp = speedups.get(name)
            sp_text = (f"{sp['speedup']:.3f} ({sp['ci_low']:.3f}-"
                       f"{sp['ci_high']:.3f}, {100 * sp.get('ci_confidence', 0.95):.1f}%), "
                       f"{sp['verdict'].replace('VERDICT_', '').lower()}"
                       if sp else "baseline")
            t = r.get("throughput", {})
            ver = r.get("verification", {})
            w(f"| {perf_doc.pow2(n)} | {mode} | {name} | {fmt(m1, 4)} | {fmt(m2, 4)} | "
              f"{pct(drift)} | {s.get('samples')} | "
              f"{str(s.get('stop_reason', '')).replace('STOP_REASON_', '').lower()} | "
              f"{pct(t.get('fraction_of_ceiling'))} ({t.get('ceiling', 'none')}) | "
              f"{clock} | {c.get('throttled_samples', 'yes' if c.get('throttled') else 0)} | "
              f"{sp_text} | {'passed' if ver.get('passed') else 'FAILED'}: "
              f"{ver.get('method', '')} |")

    w("\n## Margins (figures, not tests)\n")
    w("| check | n | figure | margin | holds |")
    w("|---|---|---|---|---|")
    l2_bytes = int(dev.get("l2_bytes", 0))
    for n in sorted({n for (n, _) in keys}):
        cold, hot = runs.get((n, "cold", 1)), runs.get((n, "hot", 1))
        if cold is None or hot is None or not COLD_MIN_BYTES <= 12 * n <= l2_bytes // 2:
            continue
        c = by_variant(cold).get("vectorized", {}).get("stats", {}).get("median_ms")
        h = by_variant(hot).get("vectorized", {}).get("stats", {}).get("median_ms")
        ratio = c / h if c and h else None
        w(f"| vectorized cold / hot median (arrays of {COLD_MIN_BYTES >> 20} MiB to half the L2) | "
          f"{perf_doc.pow2(n)} | "
          f"{fmt(ratio, 2)} | >= {COLD_OVER_HOT} | "
          f"{'n/a' if ratio is None else 'yes' if ratio >= COLD_OVER_HOT else 'NO'} |")
    for n, by_waves in sorted(data.get("grid_sweep", {}).items(), key=lambda kv: int(kv[0])):
        if "0" not in by_waves:
            continue
        ratio = by_waves["0"] / min(by_waves.values())
        w(f"| covering grid / best grid of the sweep, cold median | {perf_doc.pow2(int(n))} | "
          f"{fmt(ratio, 3)} | <= {1 + GRID_MARGIN:.2f} | "
          f"{'yes' if ratio <= 1 + GRID_MARGIN else 'NO'} |")
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="what", required=True)
    p = sub.add_parser("pack")
    p.add_argument("--dir", required=True)
    p.add_argument("--command", required=True)
    p.add_argument("--data", required=True)
    p.add_argument("--grid-log")
    perf_doc.add_render_command(sub)
    args = parser.parse_args()
    if args.what == "pack":
        perf_doc.save_data(args.data, pack(args.dir, args.command, args.grid_log))
        return
    perf_doc.render_command(args, render)


if __name__ == "__main__":
    main()
