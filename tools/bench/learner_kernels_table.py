#!/usr/bin/env python3
"""docs/perf/learner_kernels.md's generated section, from
docs/perf/data/learner_kernels.json (learner_kernels_gpu.py's output): the
starters' compile times on the GPU machine, and learners' kernels timed by
kbench beside Nsight Compute's durations of the same kernels.

  learner_kernels_table.py render --data DATA.json --doc DOC.md
"""

import perf_doc


def render(data):
    lines = [f"On {data['device']}, through the server and the CLI "
             "(tools/bench/learner_kernels_gpu.py).", "",
             "Compile times: the server's time of each compile on a fresh server (NVRTC and "
             "nvJitLink in the sandbox, its process start included), and the whole round "
             "trip of the same request again (the `kbench` process's start included), which "
             "the cache serves.", "",
             "| starter | dtype | compile ms | resubmit round trip ms (cached) | registers |",
             "|---|---|---:|---:|---:|"]
    for row in data["compile"]:
        lines.append(f"| {row['file']} | {row['dtype']} | {row['compile_ms']:.0f} | "
                     f"{row['resubmit_round_trip_ms']:.1f} ({'yes' if row['cached'] else 'no'})"
                     f" | {row['registers']} |")
    lines += ["", f"Timing against Nsight Compute ({data['ncu']}): kbench's median of the "
              "learner's kernel in a run beside the built-in, and the median of "
              "`gpu__time_duration.sum` over the kernel's launches in the same request "
              "under ncu (`--clock-control none`): with ncu's own cold caches "
              "(`--cache-control all`: flushed and invalidated before each launch), and "
              "with the caches as the server leaves them before each launch (`--cache-control "
              "none`; ncu takes every launch of the kernel in the request, the untimed one "
              "after each reload and the checked ones too, so this is no reading of the "
              "timed launches alone: docs/perf/cold_state.md measures those apart).", "",
              "| kernel | request | kbench median ms (samples) | ncu, its cold caches, ms "
              "(launches) | kbench / ncu | ncu, caches as left, ms (launches) | "
              "kbench / that |",
              "|---|---|---:|---:|---:|---:|---:|"]
    for row in data["timing"]:
        ratio = row["kbench_median_ms"] / row["ncu_median_ms"]
        theirs = row.get("ncu_kbench_caches_median_ms")
        same = (f"{theirs:.4f} ({row['ncu_kbench_caches_launches']}) | "
                f"{row['kbench_median_ms'] / theirs:.3f}") if theirs else "n/a | n/a"
        lines.append(f"| {row['kernel']} | `{row['request']}` | {row['kbench_median_ms']:.4f} "
                     f"({row['kbench_samples']}) | {row['ncu_median_ms']:.4f} "
                     f"({row['ncu_launches']}) | {ratio:.3f} | {same} |")
    return "\n".join(lines) + "\n"


def main():
    perf_doc.table_main(render, packs=False)


if __name__ == "__main__":
    main()
