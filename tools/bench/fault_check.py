#!/usr/bin/env python3
"""A real sticky CUDA error in a worker, through the kbench CLI: a run that
asks its worker to write to an illegal address (kbench --fault
illegal-address; the server must run with --enable-fault-injection) ends
with an error naming what happened, the worker is restarted (a new pid, the
restart count up by one, the device healthy again), and the next run on the
new worker verifies. Prints what it saw; exits 1 if any step fails.

Usage: fault_check.py --server HOST:PORT --kbench PATH
"""
import argparse
import json
import subprocess
import sys
import time


def kbench(args, *command):
    return subprocess.run([args.kbench, "--server", args.server, *command],
                          capture_output=True, text=True, timeout=300)


def device0(args):
    info = json.loads(kbench(args, "--json", "info").stdout)
    return info["devices"][0]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--server", required=True)
    parser.add_argument("--kbench", required=True)
    args = parser.parse_args()
    ok = True
    before = device0(args)
    print(f"before: worker pid {before.get('worker_pid')}, "
          f"restarts {before.get('worker_restarts', 0)}")
    faulted = kbench(args, "--quiet", "attention", "--seq", "512", "--variant", "fused",
                     "--budget-ms", "200", "--fault", "illegal-address")
    message = faulted.stderr.strip().splitlines()[-1] if faulted.stderr.strip() else ""
    print(f"faulted run: exit {faulted.returncode}: {message}")
    ok &= faulted.returncode == 3 and "illegal" in faulted.stderr.lower()
    deadline = time.time() + 120
    after = device0(args)
    while time.time() < deadline and not (
            after.get("healthy") and after.get("worker_pid") != before.get("worker_pid")):
        time.sleep(0.5)
        after = device0(args)
    print(f"after: worker pid {after.get('worker_pid')}, restarts "
          f"{after.get('worker_restarts', 0)}, healthy {after.get('healthy', False)}")
    ok &= (after.get("healthy", False) and after.get("worker_pid") != before.get("worker_pid")
           and int(after.get("worker_restarts", 0)) == int(before.get("worker_restarts", 0)) + 1)
    run = kbench(args, "--json", "--quiet", "attention", "--seq", "1024", "--dtype", "fp16",
                 "--variant", "naive,fused", "--budget-ms", "300")
    verified = run.returncode == 0 and json.loads(run.stdout)["summary"]["all_verified"]
    print(f"next run on the new worker: exit {run.returncode}, verified {verified}")
    ok &= bool(verified)
    print("fault check:", "OK" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
