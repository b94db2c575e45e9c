#!/usr/bin/env python3
"""docs/perf/store_scale.md's generated section, from
docs/perf/data/store_scale.json: what kbench_store_scale measured on each
engine, one row per view.

  store_scale_table.py pack --data OUT.json --machine TEXT RESULT.json...
      Packs the --json lines of kbench_store_scale runs (one file each) with
      a line on the machine they ran on.
  store_scale_table.py render --data DATA.json --doc DOC.md
      Rewrites the generated section of DOC.md (tools/bench/perf_doc.py).
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench"))
import perf_doc  # noqa: E402


def render(data):
    runs = data["runs"]
    lines = [f"Measured on {data['machine']}; each view read {runs[0]['repeat']} times, "
             "the median and (in brackets) the slowest, in milliseconds.", ""]
    header = "| view | " + " | ".join(
        f"{run['engine']}, {run['runs']:,} runs, {run['learners']:,} learners, "
        f"{run['labels']} labels" for run in runs) + " |"
    lines += [header, "|---|" + "---:|" * len(runs)]
    for i, view in enumerate(runs[0]["views"]):
        cells = []
        for run in runs:
            v = run["views"][i]
            cells.append(f"{v['median_ms']:.1f} ({v['max_ms']:.1f})")
        lines.append(f"| {view['view']} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    perf_doc.table_main(render)
