#!/usr/bin/env python3
"""Learners' kernels on the GPU machine, measured through the server and the
CLI as a learner runs them, into one JSON file (docs/perf/data/
learner_kernels.json; docs/perf/learner_kernels.md is generated from it by
learner_kernels_table.py):

1. compile times: every starter of docs/examples/kernels in every dtype of
   its op, `kbench --json compile` twice on a fresh server: the server's
   compile_ms of the first, and the whole round trip of the second (the
   CLI's start included), which the cache serves;
2. timing against Nsight Compute: vector_add_naive.cu and attention_tiled.cu
   run through the CLI beside the built-in; then the same requests twice
   with the server under ncu (--clock-control none, one metric:
   gpu__time_duration.sum), once with ncu's own cold caches
   (--cache-control all) and once with the caches as the server leaves
   them (--cache-control none; every launch of the kernel, not only the
   timed ones), and the medians of ncu's durations
   of the learner's kernel beside kbench's median of the run without ncu.

    learner_kernels_gpu.py --server-bin .gpu/kbench-server --kbench .gpu/kbench --out FILE.json

Reads only: ncu leaves the clocks as they are.
"""
import argparse
import csv
import io
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

import perf_doc

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
STARTERS = os.path.join(ROOT, "docs", "examples", "kernels")
DTYPES = {"vector_add": ["fp32"], "attention": ["fp32", "fp16", "bf16"]}
# The runs compared with ncu: the CLI's arguments, and the kernel's entry.
TIMED = [
    ("vector_add_naive", ["vector-add", "--n", "16777216", "--variant", "naive"]),
    ("attention_tiled", ["attention", "--batch", "4", "--heads", "16", "--seq", "1024",
                         "--head-dim", "64", "--dtype", "fp16", "--variant", "naive"]),
]


def start_server(command, work, name, env=None):
    out = open(os.path.join(work, f"{name}.out"), "w+")
    err = open(os.path.join(work, f"{name}.err"), "w")
    process = subprocess.Popen(command, stdout=out, stderr=err, env=env)
    deadline = time.time() + 180
    while time.time() < deadline and process.poll() is None:
        out.seek(0)
        found = re.search(r"^kbench-server listening on 127\.0\.0\.1:(\d+)$", out.read(), re.M)
        if found:
            return process, f"127.0.0.1:{found.group(1)}"
        time.sleep(0.5)
    process.kill()
    raise RuntimeError(f"{name}: the server did not start: "
                       f"{open(os.path.join(work, name + '.err')).read()[-2000:]}")


def children(pid):
    """The pids whose parent is `pid`."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                fields = open(f"/proc/{entry}/stat").read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.append(int(entry))
    return found


def stop(process, under_ncu=False):
    # Under ncu the server is ncu's child: stopped itself, it stops its
    # workers cleanly, so ncu writes what it measured, and ncu then exits.
    for pid in children(process.pid) if under_ncu else []:
        os.kill(pid, signal.SIGTERM)
    if not under_ncu:
        process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=120)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def kbench(args, address, *command):
    result = subprocess.run([args.kbench, "--server", address, "--json", *command],
                            capture_output=True, text=True, timeout=600)
    if result.returncode != 0:
        raise RuntimeError(f"kbench {' '.join(command)}: exit {result.returncode}: "
                           f"{result.stderr[-2000:]}")
    return json.loads(result.stdout)


def compile_times(args, address):
    rows = []
    for file in sorted(os.listdir(STARTERS)):
        if not file.endswith(".cu"):
            continue
        op = "vector_add" if file.startswith("vector_add") else "attention"
        for dtype in DTYPES[op]:
            command = ["compile", os.path.join(STARTERS, file), "--op", op.replace("_", "-"),
                       "--dtype", dtype]
            first = kbench(args, address, *command)
            # The resubmit's whole round trip, the CLI's start included: a
            # cached result carries the first compile's compile_ms.
            start = time.monotonic()
            again = kbench(args, address, *command)
            again_ms = (time.monotonic() - start) * 1000
            rows.append({"file": file, "dtype": dtype, "compile_ms": first["compile_ms"],
                         "first_cached": first["cached"], "cached": again["cached"],
                         "resubmit_round_trip_ms": again_ms,
                         "registers": first["registers_per_thread"]})
            print(f"compile {file} {dtype}: {first['compile_ms']:.0f} ms (cached "
                  f"{first['cached']}), resubmit {again_ms:.1f} ms round trip (cached "
                  f"{again['cached']})", flush=True)
    return rows


def timed_run(args, address, entry, command):
    result = kbench(args, address, *command, "--kernel", os.path.join(STARTERS, entry + ".cu"))
    for variant in result["results"]:
        if variant["variant"] == entry + ".cu":
            return result, variant
    raise RuntimeError(f"no result for {entry}.cu")


def ncu_durations(ncu_csv, entry):
    """The durations (ms) ncu measured of `entry`'s launches."""
    text = open(ncu_csv).read()
    start = text.find('"ID"')
    rows = csv.DictReader(io.StringIO(text[start:])) if start >= 0 else []
    durations = []
    for row in rows:
        if row.get("Kernel Name", "").split("(")[0] != entry:
            continue
        if row.get("Metric Name") != "gpu__time_duration.sum":
            continue
        value = float(row["Metric Value"].replace(",", ""))
        unit = row.get("Metric Unit", "ns")
        durations.append(value * {"ns": 1e-6, "nsecond": 1e-6, "us": 1e-3, "usecond": 1e-3,
                                  "ms": 1.0, "msecond": 1.0}[unit])
    return durations


def ncu_run(args, ncu, server, work, cache_control):
    """The durations (ms) of each TIMED entry's launches, with the server
    under ncu and the same requests as the timed runs."""
    ncu_csv = os.path.join(work, f"ncu_{cache_control}.csv")
    names = "|".join(entry for entry, _ in TIMED)
    process, address = start_server(
        [ncu, "--target-processes", "all", "--clock-control", "none", "--cache-control",
         cache_control, "--kernel-name", f"regex:^({names})$", "--metrics",
         "gpu__time_duration.sum", "--csv", "--log-file", ncu_csv, *server], work,
        f"ncu_server_{cache_control}")
    try:
        for entry, command in TIMED:
            kbench(args, address, *command, "--kernel", os.path.join(STARTERS, entry + ".cu"),
                   "--budget-ms", "200")
    finally:
        stop(process, under_ncu=True)
    found = {}
    for entry, _ in TIMED:
        found[entry] = ncu_durations(ncu_csv, entry)
        if not found[entry]:
            raise RuntimeError(f"ncu measured no launch of {entry}: {open(ncu_csv).read()[-2000:]}")
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server-bin", required=True)
    parser.add_argument("--kbench", required=True)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    ncu = shutil.which("ncu") or "/usr/local/cuda/bin/ncu"
    work = tempfile.mkdtemp(prefix="kbench-learner-")
    server = [args.server_bin, "--backend", "cuda", "--listen", "127.0.0.1:0", "--http", "off",
              "--auth", "off", "--store", os.path.join(work, "store.sqlite")]
    data = {"compile": [], "timing": []}

    process, address = start_server(server, work, "server")
    try:
        info = kbench(args, address, "info")
        data["device"] = info["devices"][0]["name"]
        data["compile"] = compile_times(args, address)
        runs = {entry: timed_run(args, address, entry, command) for entry, command in TIMED}
    finally:
        stop(process)

    version = subprocess.run([ncu, "--version"], capture_output=True, text=True).stdout
    data["ncu"] = version.strip().splitlines()[-1] if version.strip() else "unknown"
    # ncu's own cold launches (--cache-control all: caches flushed and
    # invalidated before each), and the launches with the caches as the
    # server leaves them (--cache-control none: every launch of the kernel,
    # the untimed and checked ones too, each after its own state).
    durations = {}
    for cache_control in ("all", "none"):
        durations[cache_control] = ncu_run(args, ncu, server, work, cache_control)
    for entry, command in TIMED:
        result, variant = runs[entry]
        kbench_ms = variant["stats"]["median_ms"]
        row = {"kernel": entry + ".cu", "request": " ".join(command),
               "kbench_median_ms": kbench_ms, "kbench_samples": variant["stats"]["samples"],
               "verified": variant["verification"]["passed"]}
        for cache_control, key in (("all", "ncu"), ("none", "ncu_kbench_caches")):
            found = durations[cache_control][entry]
            row[f"{key}_median_ms"] = statistics.median(found)
            row[f"{key}_launches"] = len(found)
        data["timing"].append(row)
        print(f"{entry}.cu: kbench median {kbench_ms:.4f} ms; ncu median "
              f"{row['ncu_median_ms']:.4f} ms (its own cold caches), "
              f"{row['ncu_kbench_caches_median_ms']:.4f} ms (the caches as the server leaves them)",
              flush=True)
    perf_doc.save_data(args.out, data)
    return 0


if __name__ == "__main__":
    sys.exit(main())
