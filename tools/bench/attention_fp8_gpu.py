#!/usr/bin/env python3
"""Fused attention in fp8 against fp16 and bf16 on the GPU machine, through
the server and the CLI as a learner runs it, into one JSON file
(docs/perf/data/attention_fp8.json; docs/perf/attention_fp8.md is generated
from it by attention_fp8_table.py).

For each shape (d = 128, N >= 4096, causal or not) and round, `kbench --json
attention ... --variant fused` once in each dtype, the dtypes' order turned
by one each round, so that each round's ratios compare runs made one after
the other; every run is verified by the server as any other (every element
against the device reference). Also records whether an FP8 attention peer
is importable on the machine (cuDNN's Python frontend; PyTorch's SDPA takes
no fp8): without one, fp8 is compared with the project's own fp16.

With --ncu, then Nsight Compute on one fused launch in fp8 and one in fp16
at the largest non-causal shape (NCU_SHAPE), each through its own server
under ncu (`attention_ncu.py flags`, the fused kernels' filter, as
attention_ncu.sh reads the misses of attention.md; the metrics known to
read when the full set reads nothing): attention_ncu.py's record of each
launch, in the file's "ncu".

    attention_fp8_gpu.py --server-bin .gpu/kbench-server --kbench .gpu/kbench \\
        [--rounds N] [--ncu] --out FILE.json
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import attention_ncu  # noqa: E402
import perf_doc  # noqa: E402
from learner_kernels_gpu import start_server, stop  # noqa: E402

# (batch, heads, seq_len, causal), d = 128.
SHAPES = [(4, 16, 4096, False), (2, 16, 8192, False), (1, 16, 16384, False),
          (2, 16, 8192, True)]
DTYPES = ["fp16", "bf16", "fp8"]
# The shape ncu reads (--ncu), and the dtypes, each against the other.
NCU_SHAPE = (1, 16, 16384, False)
NCU_DTYPES = ["fp8", "fp16"]


def server_command(args, work, name):
    return [args.server_bin, "--backend", "cuda", "--listen", "127.0.0.1:0", "--http", "off",
            "--auth", "off", "--store", os.path.join(work, name + ".sqlite")]


def run_fused(args, address, shape, dtype, *extra):
    """`kbench --json attention ... --variant fused`: the fused result."""
    batch, heads, seq, causal = shape
    cli = [args.kbench, "--server", address, "--json", "attention", "--batch", str(batch),
           "--heads", str(heads), "--seq", str(seq), "--head-dim", "128", "--dtype", dtype,
           "--variant", "fused", *extra] + (["--causal"] if causal else [])
    out = subprocess.run(cli, capture_output=True, text=True, timeout=120)
    if out.returncode not in (0, 1):  # 1: ran, failed verification
        raise RuntimeError(f"{' '.join(cli)}: {out.stderr[-2000:]}")
    return fused_result(json.loads(out.stdout))


def ncu_record(args, ncu, work, dtype):
    """attention_ncu.py's record of one fused launch in `dtype` at
    NCU_SHAPE, the server under ncu; an error record when none is read."""
    batch, heads, seq, causal = NCU_SHAPE
    point = f"{dtype} {batch} {heads} {seq} 128 {int(causal)}"
    record = None
    for known in (False, True):
        log = os.path.join(work, f"ncu_{dtype}_{'known' if known else 'full'}.csv")
        command = [ncu, "--target-processes", "all", *attention_ncu.ncu_flags(known),
                   "-k", "regex:" + attention_ncu.FUSED.pattern, "--log-file", log,
                   *server_command(args, work, f"ncu_{dtype}")]
        try:
            process, address = start_server(command, work, f"ncu_server_{dtype}")
            try:
                run_fused(args, address, NCU_SHAPE, dtype, "--budget-ms", "200")
            finally:
                stop(process, under_ncu=True)
            with open(log, errors="replace") as f:
                record = attention_ncu.parse(f.read(), point)
            break
        except (OSError, RuntimeError, ValueError, subprocess.TimeoutExpired) as e:
            record = {"point": point, "error": str(e)[-500:]}
    print(f"ncu {point}: {attention_ncu.summary(record)}", flush=True)
    return record


def fused_result(report):
    """The fused variant's result of a `kbench --json attention` report."""
    for result in report.get("results", []):
        if result.get("variant") == "fused":
            return result
    raise RuntimeError(f"no fused result in {json.dumps(report)[:2000]}")


def peer_probe():
    """Which FP8 attention peer Python can import here, or None."""
    probe = subprocess.run([sys.executable, "-c", "import cudnn; print(cudnn.__version__)"],
                           capture_output=True, text=True, timeout=60)
    return f"cudnn frontend {probe.stdout.strip()}" if probe.returncode == 0 else None


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--server-bin", required=True)
    parser.add_argument("--kbench", required=True)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--ncu", action="store_true",
                        help="then Nsight Compute on one fp8 and one fp16 launch")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    device = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"],
                            capture_output=True, text=True, check=True).stdout.strip()
    data = {"device": device, "head_dim": 128, "peer": peer_probe(), "rounds": args.rounds,
            "rows": []}
    with tempfile.TemporaryDirectory() as work:
        process, address = start_server(server_command(args, work, "fp8"), work, "server")
        try:
            for shape in SHAPES:
                batch, heads, seq, causal = shape
                for r in range(args.rounds):
                    for dtype in DTYPES[r % len(DTYPES):] + DTYPES[:r % len(DTYPES)]:
                        result = run_fused(args, address, shape, dtype)
                        row = {"batch": batch, "heads": heads, "seq_len": seq, "causal": causal,
                               "dtype": dtype, "round": r,
                               "median_ms": result["stats"]["median_ms"],
                               "samples": result["stats"].get("samples", 0),
                               "passed": result["verification"].get("passed", False),
                               "rel_l2_error": result["verification"].get("rel_l2_error", 0.0),
                               "config": result.get("config", "")}
                        data["rows"].append(row)
                        print(f"B {batch} H {heads} N {seq}{' causal' if causal else ''} "
                              f"{dtype} round {r}: {row['median_ms']:.4f} ms, "
                              f"{'passed' if row['passed'] else 'FAILED'}", flush=True)
                        perf_doc.save_data(args.out, data)
        finally:
            stop(process)
        if args.ncu:
            ncu = shutil.which("ncu") or "/usr/local/cuda/bin/ncu"
            version = subprocess.run([ncu, "--version"], capture_output=True, text=True)
            lines = version.stdout.strip().splitlines()
            data["ncu"] = {"ncu": lines[-1] if lines else "unknown", "points": []}
            for dtype in NCU_DTYPES:
                data["ncu"]["points"].append(ncu_record(args, ncu, work, dtype))
                perf_doc.save_data(args.out, data)
    perf_doc.save_data(args.out, data)


if __name__ == "__main__":
    main()
