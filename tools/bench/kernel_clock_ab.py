#!/usr/bin/env python3
"""Whether kbench's kernel clock (kernels/cuda_runtime/kernel_clock.h: CUPTI
attached to the worker) changes what the worker times outside its cold
samples, on the GPU machine.

kbench-server is started twice, one after the other: with
KBENCH_KERNEL_CLOCK=off (CUPTI never attached; cold samples by CUDA events)
and without it (the kernel clock); through each, the same requests of the
vector add, naive and vectorized, at each of --sizes, cold and then hot, so
that the clock's worker has traced cold samples before its hot ones, as a
worker serving both does. Prints each size, mode and variant's medians side
by side (on over off), and how long each request took (the clock keeps
CUPTI attached across consecutive cold samples and detaches it before a hot
one: attaching costs wall time, not the spans), and writes them to --out
as JSON. Hot medians that
agree say CUPTI costs hot launches nothing; cold ones differ by what events
add around a launch (docs/perf/cold_state.md).

    kernel_clock_ab.py --server-bin .gpu/kbench-server --kbench .gpu/kbench --out ab.json
    kernel_clock_table.py pack --data docs/perf/data/kernel_clock.json --machine TEXT ab.json...

--backend cpu runs the same flow on a machine without a GPU (no figures of
the GPU; a check of the script).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from learner_kernels_gpu import start_server, stop  # noqa: E402


def medians(report):
    """{variant: median ms} of a `kbench --json vector-add` report."""
    found = {}

    def walk(node):
        if isinstance(node, dict):
            if "variant" in node and isinstance(node.get("stats"), dict):
                found[node["variant"]] = node["stats"]["median_ms"]
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)
    walk(report)
    return found


def run_all(args, work, clock):
    env = dict(os.environ)
    env.pop("KBENCH_KERNEL_CLOCK", None)
    if clock == "off":
        env["KBENCH_KERNEL_CLOCK"] = "off"
    name = f"server_clock_{clock}"
    command = [args.server_bin, "--backend", args.backend, "--listen", "127.0.0.1:0", "--http",
               "off", "--auth", "off", "--store", os.path.join(work, name + ".sqlite")]
    process, address = start_server(command, work, name, env=env)
    results = {}
    try:
        for mode in ("cold", "hot"):
            for n in args.sizes:
                began = time.monotonic()
                out = subprocess.run(
                    [args.kbench, "--server", address, "--json", "vector-add", "--n", str(n),
                     "--variant", "naive,vectorized", "--mode", mode],
                    capture_output=True, text=True, timeout=120, check=True).stdout
                results[(n, mode)] = (medians(json.loads(out)), time.monotonic() - began)
    finally:
        stop(process)
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--server-bin", required=True)
    parser.add_argument("--kbench", required=True)
    parser.add_argument("--backend", default="cuda")
    parser.add_argument("--sizes", type=lambda s: [int(x) for x in s.split(",")],
                        default=[65536, 1048576, 16777216],
                        help="comma-separated element counts (default 2^16, 2^20, 2^24)")
    parser.add_argument("--label", default="",
                        help="what this build of the clock does, for the table "
                        "(kernel_clock_table.py)")
    parser.add_argument("--out", required=True,
                        help="one line of JSON (kernel_clock_table.py pack reads it)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        off = run_all(args, work, "off")
        on = run_all(args, work, "on")
    rows = []
    for (n, mode), (variants, off_s) in off.items():
        on_variants, on_s = on.get((n, mode), ({}, None))
        print(f"n={n} {mode}: the request took {off_s:.2f} s with the clock off, "
              f"{on_s:.2f} s on" if on_s is not None else f"n={n} {mode}: no run with the clock")
        for variant, off_ms in variants.items():
            on_ms = on_variants.get(variant)
            rows.append({"n": n, "mode": mode, "variant": variant, "clock_off_ms": off_ms,
                         "clock_on_ms": on_ms, "request_off_s": off_s, "request_on_s": on_s})
            print(f"n={n} {mode} {variant}: clock off {off_ms:.4f} ms, on "
                  f"{on_ms:.4f} ms, on/off {on_ms / off_ms:.3f}" if on_ms else
                  f"n={n} {mode} {variant}: no run with the clock")
    with open(args.out, "w") as f:
        json.dump({"backend": args.backend, "label": args.label, "rows": rows}, f)
        f.write("\n")
    return 0 if rows and all(r["clock_on_ms"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
