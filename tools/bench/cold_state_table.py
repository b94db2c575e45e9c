#!/usr/bin/env python3
"""docs/perf/cold_state.md's generated section, from docs/perf/data/
cold_state.json (cold_state_probe.py's output): the naive vector add timed
after each start state by CUDA events and by Nsight Compute, with ncu's own
cold caches and with the state left as it was.

  cold_state_table.py render --data DATA.json --doc DOC.md
"""

import perf_doc


def ratio(numerator, denominator):
    return f"{numerator / denominator:.3f}" if numerator and denominator else "n/a"


def ms(value, count):
    return f"{value:.4f} ({count})" if value else "n/a"


def render(data):
    lines = [f"On {data['device']}: n = {data['n']:,} floats ({3 * 4 * data['n'] / 2**20:.0f} MiB "
             f"moved a launch), an L2 of {data['l2_bytes'] / 2**20:.0f} MiB, kbench's flush "
             f"buffer {data['flush_bytes'] / 2**20:.0f} MiB; {data['ncu']}. Medians, with the "
             "launches each is of in brackets; `--clock-control none` both times.", "",
             "| state | what precedes the launch | events ms | ncu, its cold caches, ms | "
             "ncu, the state as left, ms | events / ncu cold | state as left / ncu cold |",
             "|---|---|---:|---:|---:|---:|---:|"]
    for row in data["states"]:
        cold = row["ncu_all_median_ms"]
        lines.append(
            f"| {row['state']} | {row['what']} | "
            f"{ms(row['event_median_ms'], row['event_samples'])} | "
            f"{ms(cold, row['ncu_all_launches'])} | "
            f"{ms(row['ncu_none_median_ms'], row['ncu_none_launches'])} | "
            f"{ratio(row['event_median_ms'], cold)} | {ratio(row['ncu_none_median_ms'], cold)} |")
    return "\n".join(lines) + "\n"


def main():
    perf_doc.table_main(render, packs=False)


if __name__ == "__main__":
    main()
