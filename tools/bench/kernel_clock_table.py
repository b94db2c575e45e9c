#!/usr/bin/env python3
"""docs/perf/kernel_clock.md's generated section, from docs/perf/data/
kernel_clock.json: kernel_clock_ab.py's runs (the vector add through
kbench-server with the kernel clock off and on, cold then hot), one table a
run, each headed by its label (what that build of the clock did).

  kernel_clock_table.py pack --data DATA.json --machine TEXT AB.json...
  kernel_clock_table.py render --data DATA.json --doc DOC.md
"""

import perf_doc


def ms(value):
    return f"{value:.4f}" if value else "n/a"


def render(data):
    lines = [f"Measured on {data['machine']}. Medians of each request's samples, ms; the "
             "request's time is the CLI's whole call, seconds.", ""]
    for run in data["runs"]:
        lines += [f"### {run['label']}", "",
                  "| n | mode | variant | clock off | clock on | on / off | request s, off | "
                  "request s, on |", "|---:|---|---|---:|---:|---:|---:|---:|"]
        for row in run["rows"]:
            off, on = row["clock_off_ms"], row["clock_on_ms"]
            ratio = f"{on / off:.3f}" if off and on else "n/a"
            seconds = [f"{row[key]:.2f}" if row.get(key) is not None else "n/a"
                       for key in ("request_off_s", "request_on_s")]
            lines.append(f"| {perf_doc.pow2(row['n'])} | {row['mode']} | {row['variant']} | "
                         f"{ms(off)} | {ms(on)} | {ratio} | {seconds[0]} | {seconds[1]} |")
        lines.append("")
    return "\n".join(lines)


def main():
    perf_doc.table_main(render)


if __name__ == "__main__":
    main()
