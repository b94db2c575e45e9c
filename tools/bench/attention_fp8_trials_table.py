#!/usr/bin/env python3
"""docs/perf/attention_fp8_trials.md's generated section, from
docs/perf/data/attention_fp8_trials.json: changes to the fused fp8 kernel
tried on the GPU machine beside the kernel as committed, and where the
committed kernel's warps spend their time.

Each trial is one device call: attention_fp8_gpu.py once for each variant,
each through a kbench-server whose worker was built with that variant
(`--worker-binary`), so the variants' times come from one machine, one
after the other, each run verified as any other (every element against the
device reference).

  attention_fp8_trials_table.py pack --data OUT.json --manifest M.json \\
      [--profile SOURCE.csv]
  attention_fp8_trials_table.py render --data DATA.json --doc DOC.md

The manifest: {"base_commit", "trials": [{"name", "question",
"baseline": ID, "variants": [{"id", "change", "runs": [FILE, ...]}]}],
"sass_probes": {...}}, FILE an attention_fp8_gpu.py output (relative to
the manifest). `pack` puts each file's rows in place of its name, and
reads the profile (Nsight Compute's source page of one launch of the
committed kernel: `ncu --import R --page source --csv --print-source sass`)
into its warp samples by opcode and by stall reason, and where, in the main
loop (the instructions executed most), the wait for every matrix product
in flight (WARPGROUP.DEPBAR.LE gsb0, 0x0) lies among the exponentials.

The render: for each trial, each variant's fp8 median time at each shape
over its runs' rounds (lowest and highest in brackets) and its speed over
the baseline's (the baseline's median over the variant's: above 1 is
faster), and whether every run verified, and Nsight Compute's readings
where a run has them (attention_fp8_gpu.py --ncu); then the profile and
the probes.
"""

import argparse
import csv
import json
import os
import statistics

import attention_ncu
import perf_doc

# What pack keeps of attention_fp8_gpu.py's rows.
ROW_FIELDS = ("batch", "heads", "seq_len", "causal", "dtype", "round", "median_ms", "passed",
              "rel_l2_error")


def shape_key(row):
    return (row["batch"], row["heads"], row["seq_len"], row["causal"])


def shape_name(key):
    batch, heads, seq, causal = key
    return f"B {batch}, H {heads}, N {seq}" + (", causal" if causal else "")


def fp8_times(variant):
    """{shape: [median_ms of each fp8 run]} and whether every fp8 run passed."""
    times, passed = {}, True
    for run in variant["runs"]:
        for row in run["rows"]:
            if row["dtype"] != "fp8":
                continue
            times.setdefault(shape_key(row), []).append(row["median_ms"])
            passed = passed and row["passed"]
    return times, passed


def trial_lines(number, trial):
    variants = trial["variants"]
    base = next(v for v in variants if v["id"] == trial["baseline"])
    base_times, _ = fp8_times(base)
    shapes = list(base_times)
    devices = sorted({run["device"] for v in variants for run in v["runs"]})
    lines = [f"### Trial {number}: {trial['name']} ({', '.join(devices)})", "",
             trial["question"], "",
             "| variant | change | " + " | ".join(shape_name(s) for s in shapes) +
             " | verified |",
             "|---|---|" + "---:|" * len(shapes) + "---|"]
    for variant in variants:
        times, passed = fp8_times(variant)
        cells = []
        for shape in shapes:
            if shape not in times:
                cells.append("n/a")
                continue
            median = statistics.median(times[shape])
            speed = statistics.median(base_times[shape]) / median
            spread = (f" ({min(times[shape]):.3f}-{max(times[shape]):.3f})"
                      if len(times[shape]) > 1 else "")
            cells.append(f"{median:.3f}{spread}, {speed:.2f}x")
        lines.append(f"| `{variant['id']}` | {variant['change']} | " + " | ".join(cells) +
                     f" | {'every run' if passed else 'NO: a run failed'} |")
    for variant in variants:
        for run in variant["runs"]:
            for record in (run.get("ncu") or {}).get("points", []):
                if not record["point"].startswith("fp8"):
                    continue  # the run's fp16 launch: no variant of it
                lines.append(f"\nNsight Compute on `{variant['id']}`, {record['point']}: "
                             f"{attention_ncu.summary(record)}.")
    return lines + [""]


def profile_lines(profile):
    total = profile["samples"]
    loop = profile["loop"]
    lines = ["### Where the committed kernel's warps are", "",
             f"Nsight Compute's source page of one fp8 launch ({profile['point']}): "
             f"{total} warp samples (every warp of the block: the producer's one thread "
             "waiting for free slots counts too). By opcode, with each one's two "
             "most common stall reasons:", "",
             "| opcode | samples % | instructions executed | top stalls (samples) |",
             "|---|---:|---:|---|"]
    for op in profile["opcodes"]:
        stalls = ", ".join(f"{name} {count}" for name, count in op["stalls"])
        lines.append(f"| {op['opcode']} | {100 * op['samples'] / total:.1f} | "
                     f"{op['executed']} | {stalls} |")
    lines += ["", "By stall reason: " + ", ".join(
        f"{name} {100 * count / total:.1f}%" for name, count in profile["stalls"]) + ".", "",
        f"In the main loop ({loop['executed']} executions of its instructions), "
        f"{loop['mufu_after_wait']} of its {loop['mufu']} MUFU.EX2 come after the wait for "
        f"every matrix product in flight (WARPGROUP.DEPBAR.LE gsb0, 0x0, "
        f"{100 * loop['wait_samples'] / total:.1f}% of the samples): the softmax of a tile "
        "runs after its warpgroup's P V of the tile before, not beside it.", ""]
    return lines


def probe_lines(probes):
    lines = ["### What the exponential instructions compile to", "",
             f"({probes['how']})", ""]
    for probe in probes["probes"]:
        lines.append(f"- `{probe['ptx']}`: " + "; ".join(f"`{s}`" for s in probe["sass"]))
    return lines + [""]


def render(data):
    lines = [f"The kernels of commit {data['base_commit']} and variants of them; a speed "
             "is the committed kernel's time over the variant's in the same call.", ""]
    for number, trial in enumerate(data["trials"], 1):
        lines += trial_lines(number, trial)
    if data.get("profile"):
        lines += profile_lines(data["profile"])
    if data.get("sass_probes"):
        lines += probe_lines(data["sass_probes"])
    return "\n".join(lines).rstrip() + "\n"


def read_profile(path, point):
    """The source page's samples by opcode and stall reason, and the main
    loop's exponentials against its wait for P V (see the module doc)."""
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    header = next(i for i, r in enumerate(rows) if "Source" in r and "Address" in r)
    names = rows[header]
    col = {name: i for i, name in enumerate(names)}
    stall_cols = [n for n in names if n.startswith("stall_") and "Not Issued" not in n]
    instructions = []
    for r in rows[header + 1:]:
        if len(r) < len(names) or not r[col["Source"]].strip():
            continue
        words = r[col["Source"]].split()
        opcode = (words[1] if words[0].startswith("@") else words[0]).split(".")[0]
        instructions.append({
            "source": " ".join(words), "opcode": opcode,
            "samples": int(r[col["Warp Stall Sampling (All Samples)"]] or 0),
            "executed": int(r[col["Instructions Executed"]] or 0),
            "stalls": {n[len("stall_"):]: int(float(r[col[n]] or 0)) for n in stall_cols}})
    by_op, stalls = {}, {}
    for ins in instructions:
        op = by_op.setdefault(ins["opcode"], {"opcode": ins["opcode"], "samples": 0,
                                              "executed": 0, "by_stall": {}})
        op["samples"] += ins["samples"]
        op["executed"] += ins["executed"]
        for name, count in ins["stalls"].items():
            op["by_stall"][name] = op["by_stall"].get(name, 0) + count
            stalls[name] = stalls.get(name, 0) + count
    opcodes = sorted(by_op.values(), key=lambda o: -o["samples"])[:12]
    for op in opcodes:
        op["stalls"] = sorted(op.pop("by_stall").items(), key=lambda s: -s[1])[:2]
    loop_count = max(i["executed"] for i in instructions if i["opcode"] == "MUFU")
    loop = [i for i in instructions if i["executed"] == loop_count]
    wait = next(k for k, i in enumerate(loop) if "DEPBAR.LE gsb0, 0x0" in i["source"])
    mufu = [k for k, i in enumerate(loop) if i["opcode"] == "MUFU"]
    return {"point": point, "samples": sum(i["samples"] for i in instructions),
            "opcodes": opcodes,
            "stalls": sorted(stalls.items(), key=lambda s: -s[1])[:8],
            "loop": {"executed": loop_count, "mufu": len(mufu),
                     "mufu_after_wait": sum(1 for k in mufu if k > wait),
                     "wait_samples": loop[wait]["samples"]}}


def pack(args):
    with open(args.manifest) as f:
        data = json.load(f)
    here = os.path.dirname(os.path.abspath(args.manifest))
    for trial in data["trials"]:
        for variant in trial["variants"]:
            runs = []
            for name in variant["runs"]:
                with open(os.path.join(here, name)) as f:
                    run = json.load(f)
                packed = {"device": run["device"], "rounds": run["rounds"],
                          "rows": [{k: row[k] for k in ROW_FIELDS} for row in run["rows"]]}
                if run.get("ncu"):
                    packed["ncu"] = run["ncu"]
                runs.append(packed)
            variant["runs"] = runs
    if args.profile:
        data["profile"] = read_profile(args.profile, args.profile_point)
    perf_doc.save_data(args.data, data)


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="what", required=True)
    p = sub.add_parser("pack")
    p.add_argument("--data", required=True)
    p.add_argument("--manifest", required=True)
    p.add_argument("--profile")
    p.add_argument("--profile-point", default="fp8, B 1, H 16, N 16384, d 128")
    perf_doc.add_render_command(sub)
    args = parser.parse_args()
    if args.what == "pack":
        pack(args)
        return
    perf_doc.render_command(args, render)


if __name__ == "__main__":
    main()
