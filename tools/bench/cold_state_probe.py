#!/usr/bin/env python3
"""What a cold sample's start state costs (issue: kbench's cold time against
Nsight Compute's): runs cold_state_probe (built from cold_state_probe.cu)
three times on the GPU machine, plain (CUDA events) and under ncu with
--cache-control all (ncu flushes and invalidates the caches before each
launch) and none (the launch meets the state the probe's preparation left),
--clock-control none both, one metric (gpu__time_duration.sum), and writes
for each state the medians of the three with their launch counts.

    cold_state_probe.py --probe PROBE [--samples 30] --out FILE.json

Reads only: ncu leaves the clocks as they are.
"""
import argparse
import csv
import io
import json
import re
import shutil
import statistics
import subprocess
import sys

import perf_doc

UNITS_MS = {"ns": 1e-6, "nsecond": 1e-6, "us": 1e-3, "usecond": 1e-3, "ms": 1.0, "msecond": 1.0}


def ncu_durations(text):
    """{state index: [ms, ...]} from ncu's --csv output of the probe's kernels."""
    start = text.find('"ID"')
    if start < 0:
        raise RuntimeError(f"ncu printed no table: {text[-2000:]}")
    found = {}
    for row in csv.DictReader(io.StringIO(text[start:])):
        if row.get("Metric Name") != "gpu__time_duration.sum":
            continue
        state = re.search(r"probe_vector_add<(\d+)>", row.get("Kernel Name", ""))
        if not state:
            continue
        value = float(row["Metric Value"].replace(",", "")) * UNITS_MS[row.get("Metric Unit", "ns")]
        found.setdefault(int(state.group(1)), []).append(value)
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--probe", required=True, help="the built cold_state_probe")
    parser.add_argument("--samples", type=int, default=30)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    ncu = shutil.which("ncu") or "/usr/local/cuda/bin/ncu"
    probe = [args.probe, "--samples", str(args.samples)]
    plain = json.loads(subprocess.run(probe, check=True, capture_output=True, text=True).stdout)
    under = {}
    for control in ("all", "none"):
        done = subprocess.run([ncu, "--clock-control", "none", "--cache-control", control,
                               "--kernel-name", "regex:probe_vector_add", "--metrics",
                               "gpu__time_duration.sum", "--csv", *probe],
                              capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"ncu --cache-control {control}: {done.stderr[-2000:]}")
        under[control] = ncu_durations(done.stdout)
    version = subprocess.run([ncu, "--version"], capture_output=True, text=True).stdout.strip()
    data = {"device": plain["device"], "n": plain["n"], "l2_bytes": plain["l2_bytes"],
            "flush_bytes": plain["flush_bytes"], "ncu": version.splitlines()[-1] if version else "",
            "states": []}
    for state in plain["states"]:
        row = {"state": state["state"], "what": state["what"],
               "event_median_ms": statistics.median(state["event_ms"]),
               "event_samples": len(state["event_ms"])}
        for control in ("all", "none"):
            found = under[control].get(state["index"], [])
            row[f"ncu_{control}_median_ms"] = statistics.median(found) if found else None
            row[f"ncu_{control}_launches"] = len(found)
        data["states"].append(row)
        print(f"{row['state']:14s} events {row['event_median_ms']:.4f} ms, ncu cold "
              f"{row['ncu_all_median_ms']:.4f}, ncu as left {row['ncu_none_median_ms']:.4f}",
              flush=True)
    perf_doc.save_data(args.out, data)
    return 0


if __name__ == "__main__":
    sys.exit(main())
