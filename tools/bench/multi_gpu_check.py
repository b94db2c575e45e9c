#!/usr/bin/env python3
"""Several GPUs behind one kbench-server (one worker each), through the
kbench CLI: the same attention run on each device alone, then one run per
device at once. Each run must verify; the concurrent runs must go to
different devices; the table shows each run's median alone and together,
so "each as fast as when run alone" is a measured ratio. Writes the raw
results as JSON (--out) and prints the table; exits 1 if a check fails.

Usage: multi_gpu_check.py --server HOST:PORT --kbench PATH --out FILE
"""
import argparse
import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

RUN = ["attention", "--batch", "8", "--heads", "16", "--seq", "4096", "--head-dim", "128",
       "--dtype", "fp16", "--variant", "naive,fused", "--budget-ms", "1500"]


def run(args):
    out = subprocess.run([args.kbench, "--server", args.server, "--json", "--quiet", *RUN],
                         capture_output=True, text=True, timeout=600)
    if out.returncode not in (0, 1):
        return {"error": out.stderr.strip()}
    return json.loads(out.stdout)


def medians(report):
    return {r["variant"]: r["stats"]["median_ms"] for r in report.get("results", [])}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--server", required=True)
    parser.add_argument("--kbench", required=True)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    info = json.loads(subprocess.run([args.kbench, "--server", args.server, "--json", "info"],
                                     capture_output=True, text=True).stdout)
    devices = [d for d in info["devices"] if d.get("healthy")]
    print(f"{len(devices)} healthy devices: " +
          ", ".join(f"{d.get('index', 0)} {d['name']}" for d in devices))
    ok = len(devices) >= 2
    # Alone: one run after another until each device has had one.
    alone = {}
    for _ in range(4 * len(devices)):
        report = run(args)
        if "error" in report:
            print("run failed:", report["error"])
            ok = False
            break
        alone.setdefault(report["started"].get("device_index", 0), report)
        if len(alone) == len(devices):
            break
    with ThreadPoolExecutor(len(devices)) as pool:
        together = list(pool.map(lambda _: run(args), range(len(devices))))
    ok &= len(alone) == len(devices) and all("error" not in r for r in together)
    used = sorted(r["started"].get("device_index", 0) for r in together if "error" not in r)
    ok &= used == sorted(alone)
    print("\n| device | variant | median ms alone | median ms together | together / alone | verified |")
    print("|---|---|---|---|---|---|")
    for report in together:
        if "error" in report:
            print("concurrent run failed:", report["error"])
            continue
        device = report["started"].get("device_index", 0)
        solo = medians(alone.get(device, {}))
        verified = report["summary"]["all_verified"] and alone.get(device, {}).get(
            "summary", {}).get("all_verified", False)
        ok &= bool(verified)
        for variant, ms in medians(report).items():
            base = solo.get(variant)
            ratio = f"{ms / base:.3f}" if base else "n/a"
            print(f"| {device} | {variant} | {base:.4f} | {ms:.4f} | {ratio} | "
                  f"{'yes' if verified else 'NO'} |")
    with open(args.out, "w") as f:
        json.dump({"info": info, "alone": alone, "together": together}, f, indent=1)
    print("\nmulti-GPU check:", "OK" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
