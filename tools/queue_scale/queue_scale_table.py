#!/usr/bin/env python3
"""docs/perf/queue_scale.md's generated section, from
docs/perf/data/queue_scale.json: what kbench_queue_scale measured, one row
per cluster size.

  queue_scale_table.py pack --data OUT.json --machine TEXT RESULT.json...
      Packs the --json lines of kbench_queue_scale runs (one file each) with
      a line on the machine they ran on.
  queue_scale_table.py render --data DATA.json --doc DOC.md
      Rewrites the generated section of DOC.md (tools/bench/perf_doc.py).
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench"))
import perf_doc  # noqa: E402


def latency(l):
    return f"{l['p50']:.1f} / {l['p99']:.1f}"


def render(data):
    runs = data["runs"]
    lines = [f"Measured on {data['machine']}. Latencies in milliseconds, median / 99th "
             "percentile; runs ended per second against the devices' ideal (every device "
             "always running).", ""]
    lines += ["| hosts x devices | learners | run | runs/s (ideal) | devices busy | claim | "
              "follow | enqueue | waiting at the end | commits/s |",
              "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in runs:
        lines.append(
            f"| {r['hosts']} x {r['devices_per_host']} | {r['learners']:,} | {r['run_ms']} ms | "
            f"{r['runs_per_second']:.1f} ({r['ideal_runs_per_second']:.0f}) | "
            f"{100 * r['device_busy_fraction']:.0f}% | {latency(r['claim_ms'])} | "
            f"{latency(r['follow_ms'])} | {latency(r['enqueue_ms'])} | "
            f"{r['waiting_at_end']:,} | {r['commits_per_second']:.0f} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    perf_doc.table_main(render)
