#!/usr/bin/env python3
"""The Triton path on the GPU machine, where torch and triton are installed:
compiles docs/examples/kernels/triton/vector_add_triton.py ahead of time to
PTX (as a learner's laptop would, no GPU used), submits it through the CLI
beside the built-in vector adds, and checks that the run verified.

    triton_check.py --server HOST:PORT --kbench .gpu/kbench [--out DIR]

Exit 0 when every variant verified (the Triton kernel included); prints the
run's table. Without triton installed it says so and exits 2.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLE = os.path.join(ROOT, "docs", "examples", "kernels", "triton", "vector_add_triton.py")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--server", required=True)
    parser.add_argument("--kbench", required=True)
    parser.add_argument("--out", default=None, help="where the PTX and the run's JSON go")
    args = parser.parse_args()
    try:
        import triton  # noqa: F401
    except ImportError:
        print("triton check: triton is not installed here")
        return 2
    out = args.out or tempfile.mkdtemp(prefix="kbench-triton-")
    os.makedirs(out, exist_ok=True)
    ptx = os.path.join(out, "vector_add_triton.ptx")
    compiled = subprocess.run([sys.executable, EXAMPLE, "--out", ptx], capture_output=True,
                              text=True, timeout=300)
    print(compiled.stdout.strip(), compiled.stderr.strip()[-3000:])
    if compiled.returncode != 0:
        print("triton check: FAILED to compile the example")
        return 1
    ok = True
    for n in (1 << 20) + 3, 1 << 24:
        base = [args.kbench, "--server", args.server]
        table = subprocess.run(base + ["vector-add", "--n", str(n), "--variant", "naive,vectorized",
                                       "--kernel", ptx], capture_output=True, text=True,
                               timeout=300)
        print(table.stdout, table.stderr[-3000:])
        run = subprocess.run(base + ["--json", "vector-add", "--n", str(n), "--variant",
                                     "naive,vectorized", "--kernel", ptx],
                             capture_output=True, text=True, timeout=300)
        with open(os.path.join(out, f"vector_add_triton_{n}.json"), "w") as f:
            f.write(run.stdout)
        verified = (run.returncode == 0 and
                    json.loads(run.stdout)["summary"]["all_verified"])
        print(f"n={n}: exit {table.returncode}/{run.returncode}, all verified {verified}")
        ok &= table.returncode == 0 and bool(verified)
    print("triton check:", "OK" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
