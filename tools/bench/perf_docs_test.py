#!/usr/bin/env python3
"""Tests of the docs/perf generators: the generated section is replaced and
the prose around it kept, each table compares only like-for-like timing
methods, the attention goals are marked and counted, and calls merge. Run by
ctest (perf_docs_scripts). With KBENCH_ATTENTION_BENCH naming a built
kbench_attention_bench, AttentionPoints checks that it and
attention_peers.py list the same points (ctest attention_bench_points)."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import attention_fp8_table  # noqa: E402
import attention_fp8_trials_table  # noqa: E402
import attention_grid  # noqa: E402
import attention_table  # noqa: E402
import attention_trials_table  # noqa: E402
import cold_state_probe  # noqa: E402
import cold_state_table  # noqa: E402
import kernel_clock_table  # noqa: E402
import perf_doc  # noqa: E402
import vector_add_shapes_table  # noqa: E402
import vector_add_table  # noqa: E402


def server_run(mode, naive_gbps, vec_gbps):
    def result(name, gbps):
        return {"variant": name, "stats": {"median_ms": 1.0, "samples": 10,
                                           "stop_reason": "STOP_REASON_CONVERGED"},
                "throughput": {"value": gbps, "fraction_of_ceiling": gbps / 4000,
                               "ceiling": "device copy bandwidth 4000 GB/s"},
                "verification": {"passed": True, "method": "all 1,048,576 elements"},
                "clocks": {"available": True, "sm_clock_mhz_min": 1980,
                           "sm_clock_mhz_max": 1980, "throttled_samples": 0}}
    return {"started": {"timing_method": f"{mode} method"},
            "results": [result("naive", naive_gbps), result("vectorized", vec_gbps)],
            "summary": {"all_verified": True, "speedups": [
                {"variant": "vectorized", "speedup": 1.5, "ci_low": 1.4, "ci_high": 1.6,
                 "ci_confidence": 0.95, "verdict": "VERDICT_FASTER"}]}}


VECTOR_ADD = {
    "command": "scripts/gpu_check.sh device",
    "info": {"devices": [{"name": "GPU", "copy_bandwidth_gbps": 4000}]},
    "peers": {"date_utc": "2026-01-01", "torch": "2", "triton": "3", "cuda": "13",
              "copy": {"gbps": 4100},
              "torch_add": [{"n": 1048576,
                             "cold": {"gbps": 1000, "median_ms": 0.01, "rse": 0.001},
                             "hot": {"gbps": 5000, "median_ms": 0.002, "rse": 0.001}}]},
    "runs": {"1048576_cold_1": server_run("cold", 900, 1200),
             "1048576_hot_1": server_run("hot", 3000, 4000)},
}


class GeneratedSection(unittest.TestCase):
    def test_replaces_only_the_section_and_keeps_the_prose(self):
        begin = perf_doc.begin_marker("d.json")
        doc = f"# Title\n\nprose\n\n{begin}\n\nold\n\n{perf_doc.END}\n\nafter\n"
        new = perf_doc.with_generated(doc, "d.json", "new table")
        self.assertEqual(new, f"# Title\n\nprose\n\n{begin}\n\nnew table\n\n"
                              f"{perf_doc.END}\n\nafter\n")
        self.assertEqual(perf_doc.with_generated(new, "d.json", "new table"), new)

    def test_appends_a_section_to_a_doc_without_one(self):
        new = perf_doc.with_generated("# Title\n", "d.json", "table")
        self.assertIn(perf_doc.begin_marker("d.json"), new)
        self.assertTrue(new.startswith("# Title\n"))


class VectorAddTable(unittest.TestCase):
    def test_compares_cold_with_cold_and_hot_with_hot(self):
        text = vector_add_table.render(VECTOR_ADD)
        cold, hot = text.split("## Cold")[1].split("## Hot")
        self.assertIn("| 1.200 |", cold)   # 1200 / 1000: cold kbench / cold torch
        self.assertNotIn("5,000", cold)
        self.assertIn("| 0.800 |", hot)    # 4000 / 5000: hot / hot
        self.assertIn("cold method", cold.splitlines()[0])

    def test_a_ratio_carries_the_interval_of_kbenchs_median_and_the_second_request(self):
        data = json.loads(json.dumps(VECTOR_ADD))
        stats = data["runs"]["1048576_cold_1"]["results"][1]["stats"]
        stats.update(median_ci_low_ms=0.95, median_ci_high_ms=1.05)
        second = server_run("cold", 900, 1200)
        second["results"][1]["stats"]["median_ms"] = 1.1
        data["runs"]["1048576_cold_2"] = second
        cold = vector_add_table.render(data).split("## Cold")[1].split("## Hot")[0]
        # 1.2 / 1.05, 1.2 / 0.95; the second request's 1.1 ms: 1.2 / 1.1.
        self.assertIn("| 1.200 (1.143-1.263; 1.091) |", cold)

    def test_asks_cold_over_hot_only_where_dram_reads_take_microseconds_and_fit_the_l2(self):
        data = json.loads(json.dumps(VECTOR_ADD))
        data["info"]["devices"][0]["l2_bytes"] = 50 << 20
        for n in (65536, 1048576, 4194304):  # arrays of 0.75, 12 and 48 MiB
            for mode, median in (("cold", 1.5), ("hot", 1.0)):
                run = server_run(mode, 900, 1200)
                for result in run["results"]:
                    result["stats"]["median_ms"] = median
                data["runs"][f"{n}_{mode}_1"] = run
        margins = vector_add_table.render(data).split("## Margins")[1]
        self.assertIn("| 2^20 | 1.50 | >= 1.2 | yes |", margins)
        self.assertNotIn("2^16", margins)  # the launch outlasts the reads
        self.assertNotIn("2^22", margins)  # more than half the L2

    def test_is_deterministic(self):
        self.assertEqual(vector_add_table.render(VECTOR_ADD),
                         vector_add_table.render(VECTOR_ADD))


class VectorAddShapesTable(unittest.TestCase):
    @staticmethod
    def sweep(date, names, torch_ms, shape_ms):
        entry = {"cold": [torch_ms] * 3, "hot": [torch_ms] * 3}
        entries = {"torch.add": entry}
        for name, ms in zip(names, shape_ms):
            entries[name] = {"cold": [ms] * 3, "hot": [ms] * 3}
        return {"date_utc": date, "device": "GPU", "torch": "t", "triton": "tr",
                "cold_method": "clock", "rounds": 3, "rep_ms": 20,
                "sizes": [{"n": 1 << 20, "entries": entries}]}

    def test_old_float4_names_read_as_the_new_and_each_run_has_its_table(self):
        old = self.sweep("2026-12-06", ["vecs=1 block=256 plain", "vecs=1 block=256 streaming",
                                        "vecs=4 block=512 plain"], 0.010, [0.010, 0.020, 0.008])
        new = self.sweep("2026-12-08", ["float4 x1 block=256 plain",
                                        "float4 x1 block=256 streaming",
                                        "float2 x1 block=256 plain",
                                        "float2 x1 block=128 plain",
                                        "kbench vectorized", "kbench naive"], 0.010,
                         [0.005, 0.010, 0.008, 0.004, 0.0045, 0.002])
        text = vector_add_shapes_table.render({"machine": "M", "runs": [old, new]})
        tables = text.split("Measured on M: ")[1:]
        self.assertEqual(len(tables), 2)
        self.assertIn("2026-12-08", tables[0])  # newest first
        self.assertIn("| float4 x1 block=256 plain / torch |", tables[1])
        # Columns: kbench's launcher, float2 plain, float2 streaming, float4
        # plain, float4 streaming (256 threads), then the best shape (kbench's
        # launchers are not shapes); n/a where a run lacks one.
        self.assertIn("| 2^20 | cold | 10.00 | n/a | n/a | n/a | 1.000 (1.000-1.000) "
                      "| 0.500 (0.500-0.500) "
                      "| float4 x4 block=512 plain | 1.250 (1.250-1.250) |", tables[1])
        self.assertIn("| 2^20 | hot | 10.00 | 2.222 (2.222-2.222) | 1.250 (1.250-1.250) | n/a "
                      "| 2.000 (2.000-2.000) | 1.000 (1.000-1.000) "
                      "| float2 x1 block=128 plain | 2.500 (2.500-2.500) |", tables[0])
        self.assertNotIn("vecs=", text)


class ColdState(unittest.TestCase):
    NCU_CSV = (
        "==PROF== Connected to process 1\n"
        '"ID","Kernel Name","Metric Name","Metric Unit","Metric Value"\n'
        '"0","void probe_vector_add<0>(const float *, const float *, float *, long long)",'
        '"gpu__time_duration.sum","us","70.50"\n'
        '"1","void probe_vector_add<2>(const float *, const float *, float *, long long)",'
        '"gpu__time_duration.sum","nsecond","69,000"\n'
        '"2","void probe_vector_add<0>(const float *, const float *, float *, long long)",'
        '"dram__bytes.sum","byte","1"\n'
        '"3","void Fill(float *, float *, long long, unsigned int)",'
        '"gpu__time_duration.sum","us","9"\n')

    def test_ncu_rows_go_to_their_state_by_the_kernels_template_argument(self):
        found = cold_state_probe.ncu_durations(self.NCU_CSV)
        self.assertEqual(sorted(found), [0, 2])
        self.assertAlmostEqual(found[0][0], 0.0705)
        self.assertAlmostEqual(found[2][0], 0.069)

    def test_ncu_output_without_a_table_is_an_error(self):
        with self.assertRaises(RuntimeError):
            cold_state_probe.ncu_durations("==ERROR== no kernels profiled\n")

    def test_the_table_divides_each_state_by_ncus_cold_duration(self):
        data = {"device": "GPU", "n": 16777216, "l2_bytes": 52428800,
                "flush_bytes": 104857600, "ncu": "ncu 1", "states": [
                    {"state": "server", "what": "flush", "event_median_ms": 0.0731,
                     "event_samples": 30, "ncu_all_median_ms": 0.071, "ncu_all_launches": 30,
                     "ncu_none_median_ms": 0.0745, "ncu_none_launches": 30},
                    {"state": "warm", "what": "nothing", "event_median_ms": 0.05,
                     "event_samples": 30, "ncu_all_median_ms": None, "ncu_all_launches": 0,
                     "ncu_none_median_ms": 0.05, "ncu_none_launches": 30}]}
        text = cold_state_table.render(data)
        self.assertIn("| server | flush | 0.0731 (30) | 0.0710 (30) | 0.0745 (30) | "
                      "1.030 | 1.049 |", text)
        self.assertIn("| warm | nothing | 0.0500 (30) | n/a | 0.0500 (30) | n/a | n/a |", text)
        self.assertIn("192 MiB moved a launch", text)


class KernelClockTable(unittest.TestCase):
    def test_one_table_a_run_with_on_over_off(self):
        row = {"n": 65536, "mode": "hot", "variant": "naive", "clock_off_ms": 0.001,
               "clock_on_ms": 0.0013, "request_off_s": 0.14, "request_on_s": None}
        text = kernel_clock_table.render({"machine": "GPU", "runs": [
            {"label": "attached for the process", "rows": [row]},
            {"label": "attached from Begin to End", "rows": [dict(row, clock_on_ms=0.001)]}]})
        first, second = text.split("### attached from Begin to End")
        self.assertIn("| 2^16 | hot | naive | 0.0010 | 0.0013 | 1.300 | 0.14 | n/a |", first)
        self.assertIn("| 2^16 | hot | naive | 0.0010 | 0.0010 | 1.000 | 0.14 | n/a |", second)


class AttentionFp8Table(unittest.TestCase):
    @staticmethod
    def rows(fp8_ms, passed=True):
        out = []
        for r, scale in enumerate([1.0, 1.1]):
            for dtype, ms in (("fp16", 2.0), ("bf16", 1.9), ("fp8", fp8_ms)):
                out.append({"batch": 2, "heads": 16, "seq_len": 8192, "causal": False,
                            "dtype": dtype, "round": r, "median_ms": ms * scale,
                            "samples": 10, "passed": passed or dtype != "fp8",
                            "rel_l2_error": 0.01, "config": "one pass" if dtype == "fp8"
                            else ""})
        return {"device": "GPU", "head_dim": 128, "peer": None, "rounds": 2, "rows": out}

    def test_speed_over_fp16_and_bf16_is_the_median_of_the_rounds_ratios(self):
        text = attention_fp8_table.render(self.rows(1.0))
        # 4 * 2 * 16 * 8192^2 * 128 = 1.1e12 FLOP in 1.05 ms (the rounds' median).
        self.assertIn("| B 2, H 16, N 8192 | 2.100 (2.000-2.200) | 1.995 (1.900-2.090) | "
                      "1.050 (1.000-1.100) | 524 | 551 | 1047 | 2.00 (2.00-2.00) | "
                      "1.90 (1.90-1.90) |", text)
        self.assertIn("none (PyTorch's SDPA takes no fp8", text)
        self.assertIn("`one pass`", text)

    def test_a_run_that_failed_verification_is_marked_and_counts_in_no_ratio(self):
        text = attention_fp8_table.render(self.rows(1.0, passed=False))
        self.assertIn("FAILED verification", text)
        self.assertIn("| n/a | n/a |", text)

    def test_ncu_readings_a_row_each_and_an_error_as_no_reading(self):
        data = self.rows(1.0)
        self.assertNotIn("Nsight Compute", attention_fp8_table.render(data))
        pct = ".avg.pct_of_peak_sustained_elapsed"
        data["ncu"] = {"ncu": "Version 1", "points": [
            {"point": "fp8 1 16 16384 128 0", "kernel": "void ns::FusedFp8Kernel<0>(int)",
             "metrics": {f"sm__pipe_tensor_op_hmma_cycles_active{pct}": 46.4,
                         f"sm__pipe_xu_cycles_active{pct}": 52.0,
                         "smsp__issue_active.avg.pct_of_peak_sustained_active": 49.1,
                         "gpu__time_duration.sum": 2400000.0},
             "units": {"gpu__time_duration.sum": "nsecond"},
             "stalls": [["wait", 1.5], ["barrier", 0.5]]},
            {"point": "fp16 1 16 16384 128 0", "error": "no launch of a fused kernel"}]}
        text = attention_fp8_table.render(data)
        self.assertIn("Nsight Compute (Version 1,", text)
        self.assertIn("| fp8 1 16 16384 128 0 | `FusedFp8Kernel<0>` | 2400 | 46 | n/a | 52 | 49 | "
                      "n/a / n/a | wait 1.5, barrier 0.5 | XU pipe (exp2 of the softmax) busy "
                      "half the time or more |", text)
        self.assertIn("| fp16 1 16 16384 128 0 | no reading: no launch of a fused kernel |", text)


class AttentionTrials(unittest.TestCase):
    @staticmethod
    def write_round(directory, side, rnd, ms_by_n, failed=()):
        with open(os.path.join(directory, f"ab_{side}_{rnd}.jsonl"), "w") as f:
            for n, ms in ms_by_n.items():
                f.write(json.dumps(dict(bench_line("kbench", "fused", 1.0, n=n), ms=ms,
                                        ok=n not in failed)) + "\n")
        with open(os.path.join(directory, f"ab_{side}_{rnd}.err"), "w") as f:
            f.write("device: GPU X, 132 SMs\n[1/2] ...\n")

    def trial(self, failed=()):
        with tempfile.TemporaryDirectory() as d:
            self.write_round(d, "base", 1, {512: 1.0, 1024: 2.0})
            self.write_round(d, "new", 1, {512: 0.8, 1024: 2.0}, failed)
            self.write_round(d, "base", 2, {512: 1.2, 1024: 2.0})
            self.write_round(d, "new", 2, {512: 1.0, 1024: 2.5})
            return attention_trials_table.pack(None, "T", "Faster?", "old", "new", "cmd", d)

    def test_speed_is_the_bases_median_over_the_news_with_the_rounds_range(self):
        data = self.trial()
        text = attention_trials_table.render(data)
        # N 512: medians 1.1 and 0.9; rounds 1.25 and 1.2.
        self.assertIn("| fp16 | 4 | 16 | 512 | 128 | no | 1.1000 | 0.9000 | 1.222 (1.200–1.250) "
                      "| yes |", text)
        # N 1024: 2.0 against 2.25; rounds 1.0 and 0.8.
        self.assertIn("| 2.0000 | 2.2500 | 0.889 (0.800–1.000) | yes |", text)
        self.assertIn("on GPU X, 132 SMs, 2 rounds: `cmd`", text)
        self.assertIn(f"{(1.1 / 0.9 * 2.0 / 2.25) ** 0.5:.3f} over 2 verified points", text)

    def test_a_point_that_failed_verification_is_marked_and_left_out_of_the_mean(self):
        text = attention_trials_table.render(self.trial(failed=(512,)))
        self.assertIn("| 1.222 (1.200–1.250) | **no** |", text)
        self.assertIn("0.889 over 1 verified points", text)

    def test_pack_replaces_a_trial_of_the_same_name_and_keeps_the_others(self):
        data = {"trials": [{"name": "T", "records": []}, {"name": "U", "records": []}]}
        with tempfile.TemporaryDirectory() as d:
            self.write_round(d, "base", 1, {512: 1.0})
            self.write_round(d, "new", 1, {512: 0.5})
            packed = attention_trials_table.pack(data, "T", "q", "b", "n", "c", d)
        self.assertEqual([t["name"] for t in packed["trials"]], ["U", "T"])
        self.assertEqual(len(packed["trials"][1]["records"]), 2)

    def test_pack_of_a_folder_without_rounds_is_an_error(self):
        with tempfile.TemporaryDirectory() as d:
            with self.assertRaises(SystemExit):
                attention_trials_table.pack(None, "T", "q", "b", "n", "c", d)


class AttentionFp8Trials(unittest.TestCase):
    @staticmethod
    def fp8_run(fp8_ms, passed=True):
        rows = [{"batch": 1, "heads": 16, "seq_len": 16384, "causal": False, "dtype": dtype,
                 "round": r, "median_ms": ms, "passed": passed or dtype != "fp8",
                 "rel_l2_error": 0.02}
                for r, ms8 in enumerate(fp8_ms) for dtype, ms in (("fp16", 3.0), ("fp8", ms8))]
        return {"device": "GPU", "rounds": len(fp8_ms), "rows": rows}

    def data(self, variant_run):
        return {"base_commit": "abc1234", "trials": [
            {"name": "Faster", "question": "Faster?", "baseline": "base",
             "variants": [{"id": "base", "change": "as committed", "runs": [self.fp8_run([2.0, 2.2])]},
                          {"id": "new", "change": "the change", "runs": [variant_run]}]}]}

    def test_speed_is_the_baselines_median_over_the_variants(self):
        text = attention_fp8_trials_table.render(self.data(self.fp8_run([2.4, 2.6])))
        # base median 2.1, variant median 2.5: 2.1 / 2.5 = 0.84, slower.
        self.assertIn("| `new` | the change | 2.500 (2.400-2.600), 0.84x | every run |", text)
        self.assertIn("| `base` | as committed | 2.100 (2.000-2.200), 1.00x | every run |", text)
        self.assertIn("### Trial 1: Faster (GPU)", text)

    def test_a_failed_run_is_named(self):
        text = attention_fp8_trials_table.render(self.data(self.fp8_run([1.0], passed=False)))
        self.assertIn("| `new` | the change | 1.000, 2.10x | NO: a run failed |", text)

    def test_the_profile_finds_the_loops_exponentials_against_its_wait(self):
        header = ["Address", "Source", "Warp Stall Sampling (All Samples)",
                  "Instructions Executed", "stall_wait", "stall_barrier",
                  "stall_wait (Not Issued)"]
        body = [["0x10", "MUFU.EX2 R1, R1", "5", "100", "4", "1", "4"],  # the loop: 100 a piece
                ["0x20", "WARPGROUP.DEPBAR.LE gsb0, 0x0", "30", "100", "0", "30", "0"],
                ["0x30", "MUFU.EX2 R2, R2", "10", "100", "9", "1", "9"],
                ["0x40", "@!P0 BRA 0x10", "2", "100", "2", "0", "2"],
                ["0x50", "MUFU.RCP R3, R3", "1", "4", "1", "0", "1"]]  # outside the loop
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "source.csv")
            with open(path, "w") as f:
                f.write('"Kernel Name","k"\n')
                for row in [header] + body:
                    f.write(",".join(f'"{cell}"' for cell in row) + "\n")
            profile = attention_fp8_trials_table.read_profile(path, "fp8 point")
        self.assertEqual(profile["samples"], 48)
        self.assertEqual(profile["loop"], {"executed": 100, "mufu": 2, "mufu_after_wait": 1,
                                           "wait_samples": 30})
        self.assertEqual(profile["opcodes"][0]["opcode"], "WARPGROUP")
        self.assertEqual(profile["opcodes"][1], {"opcode": "MUFU", "samples": 16,
                                                 "executed": 204,
                                                 "stalls": [("wait", 14), ("barrier", 2)]})
        self.assertEqual(profile["stalls"][0], ("barrier", 32))
        data = self.data(self.fp8_run([2.0]))
        data["profile"] = profile
        self.assertIn("1 of its 2 MUFU.EX2 come after the wait",
                      attention_fp8_trials_table.render(data))


class AttentionTable(unittest.TestCase):
    def test_keeps_server_runs_apart_from_the_bench_and_its_ratios(self):
        key = {"dtype": "fp16", "batch": 32, "heads": 32, "head_dim": 64,
               "causal": False, "seq_len": 512}
        data = {"command": "c", "bench": [
            dict(key, variant="fused", tflops=300.0),
            dict(key, variant="sdpa-flash", tflops=200.0)],
            "server": [{"request": {"dtype": "DTYPE_FP16",
                                    "attention": {"batch": 32, "heads": 32,
                                                  "head_dim": 64, "causal": False,
                                                  "seq_len": 512}},
                        "started": {"timing_method": "server cold"},
                        "results": [{"variant": "fused", "throughput": {"value": 290.0},
                                     "verification": {"passed": True, "method": "m"}}],
                        "summary": {"speedups": []}}]}
        text = attention_table.render(data)
        bench, server = text.split("## Through kbench-server")
        self.assertIn("| 1.50 |", bench)  # fused / flash, both timed alike
        self.assertNotIn("290.0", bench)
        self.assertIn("290.0", server)
        self.assertIn("server cold", server.splitlines()[0])


def bench_line(source, variant, tflops, dtype="fp16", b=4, h=16, n=4096, d=128,
               causal=False, **extra):
    return dict(source=source, variant=variant, tflops=tflops, dtype=dtype,
                batch=b, heads=h, seq_len=n, head_dim=d, causal=causal, **extra)


def point(fused, flash=None, cudnn=None, efficient=None, **shape):
    """The bench's fused and the peers' lines of one point (None: no line;
    "n/a": the peer refused it)."""
    lines = [bench_line("kbench", "fused", fused, **shape)]
    for variant, tf in (("sdpa-flash", flash), ("sdpa-cudnn", cudnn),
                        ("sdpa-efficient", efficient)):
        if tf is not None:
            lines.append(bench_line("torch", variant,
                                    None if tf == "n/a" else tf, **shape))
    return lines


def table_row(text, prefix):
    rows = [line for line in text.splitlines() if line.startswith(prefix)]
    assert len(rows) == 1, (prefix, rows)
    return [c.strip() for c in rows[0].strip("|").split("|")]


def goal_line(text, ratio):
    return next(line for line in text.splitlines()
                if line.startswith(f"- {ratio} "))


class AttentionGoals(unittest.TestCase):
    HEAD = attention_table.GRID_HEAD + attention_table.PEERS + [
        t for t, _, _ in attention_table.RATIOS]

    def cells(self, text, prefix):
        return dict(zip(self.HEAD, table_row(text, prefix)))

    def test_marks_the_ratios_that_miss_their_goal_and_only_those(self):
        # fp16, d 128, N 4096: the flash (1.3) and cuDNN (1.0) goals apply.
        text = attention_table.render({"command": "c", "server": [], "bench":
                                       point(390.0, flash=300.0, cudnn=400.0,
                                             efficient=500.0)})
        c = self.cells(text, "| fp16 | 128 | no | 4096 |")
        self.assertEqual(c["fused/flash"], "1.30")         # met: = 1.3
        self.assertEqual(c["fused/cuDNN"], "0.97 ✗")       # missed: < 1.0
        self.assertEqual(c["fused/efficient"], "0.78")     # no goal in fp16

    def test_cudnn_goal_at_every_half_point_and_not_in_fp32(self):
        bench = (point(100.0, cudnn=200.0, n=512, b=32) +
                 point(100.0, cudnn=90.0, d=64, h=32, dtype="bf16") +
                 point(100.0, cudnn=200.0, n=8192, b=2) +
                 point(100.0, cudnn=200.0, dtype="fp32"))
        text = attention_table.render({"command": "c", "server": [], "bench": bench})
        self.assertEqual(self.cells(text, "| fp16 | 128 | no | 512 |")["fused/cuDNN"], "0.50 ✗")
        self.assertEqual(self.cells(text, "| bf16 | 64 | no | 4096 |")["fused/cuDNN"], "1.11")
        self.assertEqual(self.cells(text, "| fp16 | 128 | no | 8192 |")["fused/cuDNN"], "0.50 ✗")
        self.assertEqual(self.cells(text, "| fp32 | 128 | no | 4096 |")["fused/cuDNN"], "0.50")
        self.assertIn("met at 1 of 3 points", goal_line(text, "fused/cuDNN"))

    @staticmethod
    def timed_in_rounds(lines, fused_ms, peer_ms):
        """The lines with each round's time under rounds_ms (as pack keeps
        them): the fused line's, then the peer's."""
        lines[0]["rounds_ms"] = fused_ms
        lines[1]["rounds_ms"] = peer_ms
        return lines

    def test_ratios_show_their_rounds_range_and_a_goal_met_within_it(self):
        # cuDNN over fused round by round: 1.10, 1.02, 0.98 (median 1.02:
        # met, but not in every round); flash 1.5, 1.4, 1.45 (beyond it).
        within = self.timed_in_rounds(point(102.0, cudnn=100.0, n=8192, b=2),
                                      [1.0, 1.0, 1.0], [1.10, 1.02, 0.98])
        beyond = self.timed_in_rounds(point(145.0, flash=100.0),
                                      [1.0, 1.0, 1.0], [1.5, 1.4, 1.45])
        text = attention_table.render({"command": "c", "server": [],
                                       "bench": within + beyond})
        self.assertEqual(self.cells(text, "| fp16 | 128 | no | 8192 |")["fused/cuDNN"],
                         "1.02 (0.98–1.10) ≈")
        self.assertEqual(self.cells(text, "| fp16 | 128 | no | 4096 |")["fused/flash"],
                         "1.45 (1.40–1.50)")
        self.assertIn("met at 1 of 2 points (0 beyond the rounds' spread, 1 within it)",
                      goal_line(text, "fused/cuDNN"))
        self.assertIn("met at 1 of 2 points (1 without the peer's figure);",
                      goal_line(text, "fused/flash"))
        self.assertIn("≈ one that meets it by the median but not in every round", text)

    def test_no_ratio_between_figures_timed_by_different_clocks(self):
        # Merged calls: fused timed by the kernels' own span, the efficient
        # peer by events around a call; flash by the same span as fused.
        lines = point(150.0, flash=100.0, efficient=50.0)
        lines[0]["cold_method"] = ("the kernels' own start and end times on the device "
                                   "(CUPTI), from the first start to the last end")
        lines[1]["cold_method"] = ("the call's kernels' own start and end times on the "
                                   "device (CUPTI, kbench's kernel clock)")
        text = attention_table.render({"command": "c", "server": [], "bench": lines})
        c = self.cells(text, "| fp16 | 128 | no | 4096 |")
        self.assertEqual(c["fused/flash"], "1.50")
        self.assertEqual(c["fused/efficient"], "")

    def test_heading_names_the_kernel_clock_when_the_bench_and_peers_both_used_it(self):
        lines = point(150.0, flash=100.0)
        for line in lines:
            line["ms"] = 1.0
        lines[0]["cold_method"] = ("the kernels' own start and end times on the device "
                                   "(CUPTI), from the first start to the last end")
        lines[1]["cold_method"] = ("the call's kernels' own start and end times on the "
                                   "device (CUPTI, kbench's kernel clock)")
        text = attention_table.render({"command": "c", "server": [], "bench": lines})
        self.assertIn("timed alike (the kernels' own span on the device (CUPTI)", text)
        self.assertNotIn("MIXED", text)
        lines[1]["cold_method"] = ("CUDA events around each call (no kernel clock: CUPTI: "
                                   "another profiler holds it)")
        text = attention_table.render({"command": "c", "server": [], "bench": lines})
        self.assertIn("MIXED", text)

    def test_other_tilings_only_beside_a_fused_timed_by_the_same_clock(self):
        clock = "the kernels' own start and end times on the device (CUPTI)"
        bench = [bench_line("kbench", "fused", 700.0, n=4096, cold_method=clock),
                 bench_line("kbench", "fused-notail", 650.0, n=4096),
                 bench_line("kbench", "fused", 720.0, n=8192, b=2, cold_method=clock),
                 bench_line("kbench", "fused-notail", 660.0, n=8192, b=2, cold_method=clock)]
        text = attention_table.render({"command": "c", "server": [], "bench": bench})
        tilings = text.split("## Other tilings")[1]
        self.assertIn("Left out: 1 timing of other tilings", tilings)
        self.assertIn("| fp16 | 2 | 16 | 8192 | 128 | no | 720.0 | 660.0 |", tilings)
        self.assertNotIn("| 4096 |", tilings)

    def test_rounds_of_unequal_counts_show_no_range(self):
        lines = self.timed_in_rounds(point(150.0, flash=100.0), [1.0, 1.0], [1.5, 1.5, 1.5])
        text = attention_table.render({"command": "c", "server": [], "bench": lines})
        self.assertEqual(self.cells(text, "| fp16 | 128 | no | 4096 |")["fused/flash"], "1.50")

    def test_fp32_goal_is_fused_over_efficient(self):
        bench = (point(40.0, efficient=35.0, dtype="fp32") +
                 point(40.0, efficient=30.0, dtype="fp32", causal=True))
        text = attention_table.render({"command": "c", "server": [], "bench": bench})
        self.assertEqual(self.cells(text, "| fp32 | 128 | no | 4096 |")["fused/efficient"], "1.14 ✗")
        self.assertEqual(self.cells(text, "| fp32 | 128 | yes | 4096 |")["fused/efficient"], "1.33")
        self.assertIn("met at 1 of 2 points; lowest 1.14 (fp32, B 4, H 16, N 4096, d 128)",
                      goal_line(text, "fused/efficient"))

    def test_a_fused_result_that_failed_verification_meets_no_goal(self):
        bench = point(400.0, flash=100.0)
        bench[0]["ok"] = False
        text = attention_table.render({"command": "c", "server": [], "bench": bench})
        c = self.cells(text, "| fp16 | 128 | no | 4096 |")
        self.assertEqual(c["fused"], "400.0 FAIL")
        self.assertEqual(c["fused/flash"], "4.00 ✗")
        self.assertIn("met at 0 of 1 points", goal_line(text, "fused/flash"))

    def test_summary_counts_met_points_and_those_without_a_peer(self):
        bench = (point(400.0, flash=300.0, dtype="bf16") +           # 1.33 met
                 point(300.0, flash=250.0, dtype="bf16", causal=True) +  # 1.20
                 point(300.0, flash="n/a", dtype="bf16", n=8192, b=2))
        text = attention_table.render({"command": "c", "server": [], "bench": bench})
        self.assertEqual(
            goal_line(text, "fused/flash"),
            "- fused/flash ≥ 1.3 (every fp16 and bf16 point, the "
            "low-parallelism shapes included): met at 1 of 3 points (1 without "
            "the peer's figure); lowest 1.20 (bf16, B 4, H 16, N 4096, d 128, causal)")
        self.assertTrue(goal_line(text, "fused/efficient").endswith(
            "no point measured"))

    def test_the_split_sweep_marks_the_fastest_split_beside_the_plans(self):
        shape = dict(b=1, h=1, n=3000)
        sweep = []
        for splits, ms in ((1, 0.044), (5, 0.022), (11, 0.028)):
            line = bench_line("kbench", f"fused-split{splits}", 1.0, **shape)
            line["ms"] = ms
            sweep.append(line)
        main = point(100.0, flash=90.0, **shape)
        main[0]["fused_plan"] = "split-KV x11: 24 query blocks, 132 SMs; wgmma"
        text = attention_table.render(
            {"command": "c", "server": [], "bench": main},
            splits={"command": "sweep", "bench": sweep})
        section = text.split("## Key splits")[1]
        self.assertIn("`sweep`", section)
        self.assertEqual(table_row(section, "| fp16 | 1 | 1 | 3000 | 128 | no |")[6:],
                         ["0.0440", "**0.0220**", "0.0280", "x5", "x11"])
        self.assertNotIn("another GPU", section)
        # Without a sweep, no section.
        self.assertNotIn("## Key splits", attention_table.render(
            {"command": "c", "server": [], "bench": main}))

    def test_a_split_sweep_of_another_gpu_than_the_tables_says_so(self):
        shape = dict(b=1, h=1, n=3000)
        sweep = [dict(bench_line("kbench", "fused-split1", 1.0, **shape), ms=0.044)]
        tables = ("NVIDIA H100 80GB HBM3",)
        other = "\n".join(attention_table.splits_section(
            {}, {"command": "sweep", "gpu": "NVIDIA H200", "bench": sweep}, "p.json", tables))
        self.assertIn("The sweep comes from another GPU than the tables above (NVIDIA H200; "
                      "the tables: NVIDIA H100 80GB HBM3)", other)
        same = "\n".join(attention_table.splits_section(
            {}, {"command": "sweep", "gpu": "NVIDIA H100", "bench": sweep}, "p.json", tables))
        self.assertNotIn("another GPU", same)

    def test_the_inputs_section_shows_each_peers_median_on_both_draws(self):
        rounds = []
        for inputs, times in (("torch-rand", (1.0, 1.2, 1.1)), ("kbench", (1.2, 1.3, 1.1))):
            for ms in times:
                line = bench_line("torch", "sdpa-cudnn", None, inputs=inputs)
                line["ms"] = ms
                rounds.append(line)
        main = point(100.0, cudnn=90.0)
        text = attention_table.render(
            {"command": "c", "server": [], "bench": main},
            inputs={"command": "both draws", "gpu": "GPU", "bench": rounds})
        section = text.split("## The peers' inputs")[1]
        self.assertIn("`both draws`", section)
        # Medians 1.1 and 1.2; the time on kbench's over torch.rand's.
        self.assertEqual(table_row(section, "| fp16 | 4 | 16 | 4096 | 128 | no |")[6:],
                         ["1.1000", "1.2000", "1.091"])
        self.assertNotIn("## The peers' inputs", attention_table.render(
            {"command": "c", "server": [], "bench": main}))

    def test_low_parallelism_shapes_have_a_table_of_their_own(self):
        bench = (point(400.0, flash=300.0) +
                 point(100.0, flash=90.0, b=1, h=4, n=4096))
        text = attention_table.render({"command": "c", "server": [], "bench": bench})
        grid, low_par = text.split("## Low-parallelism shapes")
        self.assertIn("| fp16 | 128 | no | 4096 |", grid)
        self.assertNotIn("| 100.0 |", grid)
        row = table_row(low_par, "| fp16 | 1 | 4 | 4096 | 128 | no |")
        self.assertEqual(row[6:8], ["", "100.0"])           # naive, fused
        self.assertIn("1.11 ✗", row)                          # the flash goal too
        self.assertIn("met at 1 of 2 points", goal_line(text, "fused/flash"))

    def test_grid_only_data_has_no_low_parallelism_table(self):
        text = attention_table.render({"command": "c", "server": [],
                                       "bench": point(400.0, flash=300.0)})
        self.assertNotIn("Low-parallelism", text)

    def test_shows_the_fused_plan_when_the_bench_reports_it(self):
        bench = point(400.0, flash=300.0)
        self.assertNotIn("fused plan", attention_table.render(
            {"command": "c", "server": [], "bench": bench}))
        bench[0]["fused_plan"] = "split-KV x4: 32 query blocks, 132 SMs"
        text = attention_table.render({"command": "c", "server": [], "bench": bench})
        self.assertIn("| fused plan |", text)
        self.assertEqual(table_row(text, "| fp16 | 128 | no | 4096 |")[-1],
                         "split-KV x4: 32 query blocks, 132 SMs")


class AttentionPack(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)

    def write(self, name, text):
        path = os.path.join(self.dir.name, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def server_report(self, dtype):
        return {"request": {"dtype": f"DTYPE_{dtype.upper()}",
                            "attention": {"batch": 4, "heads": 16, "seq_len": 4096,
                                          "head_dim": 128, "causal": False}},
                "results": [], "summary": {}}

    def test_one_call_keeps_its_command_as_text(self):
        lines = self.write("kbench.jsonl", "noise\n" + json.dumps(
            bench_line("kbench", "fused", 1.0)) + "\n")
        data = attention_table.pack([lines], "call A")
        self.assertEqual(data["command"], "call A")
        self.assertEqual(len(data["bench"]), 1)

    def test_merges_calls_and_a_point_measured_twice_keeps_the_later(self):
        first = attention_table.pack([self.write("a.jsonl", "\n".join(
            json.dumps(r) for r in point(100.0, flash=80.0) +
            point(30.0, efficient=20.0, dtype="fp32")))], "call A")
        first["server"] = [self.server_report("fp16")]
        a = self.write("a.json", json.dumps(first))
        b_lines = self.write("b.jsonl", json.dumps(bench_line("kbench", "fused", 200.0)))
        b_server = self.write("server_bf16.json", json.dumps(self.server_report("bf16")))
        data = attention_table.pack([a, b_lines, b_server], "call B")
        self.assertEqual(data["command"], ["call A", "call B"])
        fused = {(r["dtype"], r["source"], r["variant"]): r["tflops"] for r in data["bench"]}
        self.assertEqual(fused, {("fp16", "kbench", "fused"): 200.0,
                                 ("fp16", "torch", "sdpa-flash"): 80.0,
                                 ("fp32", "kbench", "fused"): 30.0,
                                 ("fp32", "torch", "sdpa-efficient"): 20.0})
        self.assertEqual(sorted(r["request"]["dtype"] for r in data["server"]),
                         ["DTYPE_BF16", "DTYPE_FP16"])
        merged = attention_table.pack([a, self.write("ab.json", json.dumps(data))])
        self.assertEqual(merged["command"], ["call A", "call B"])
        self.assertEqual(len(merged["bench"]), 4)
        text = attention_table.render(data)
        self.assertIn("- `call A`\n- `call B`", text)
        self.assertIn("| 2.50 |", text)   # 200 / 80: call B's fused

    def test_rounds_of_a_call_keep_the_median_and_every_time(self):
        def timed(variant, ms, **extra):
            return json.dumps(bench_line("kbench" if variant == "fused" else "torch",
                                         variant, 100.0 / ms, ms=ms, **extra))
        rounds = [self.write(f"round{i}.jsonl", "\n".join(lines)) for i, lines in enumerate([
            [timed("fused", 2.0, ok=True), timed("sdpa-flash", 2.0)],
            [timed("fused", 3.0, ok=True), timed("sdpa-flash", 2.2)],
            [timed("fused", 1.0, ok=False), timed("sdpa-flash", 1.0)]])]
        data = attention_table.pack(rounds, "call")
        got = {r["variant"]: r for r in data["bench"]}
        self.assertEqual(got["fused"]["ms"], 2.0)
        self.assertEqual(got["fused"]["rounds_ms"], [2.0, 3.0, 1.0])
        self.assertFalse(got["fused"]["ok"])  # one round failed verification
        self.assertEqual(got["sdpa-flash"]["ms"], 2.0)
        # Of two rounds, the mean, and TFLOP/s of it.
        two = attention_table.pack(rounds[:2], "call")
        fused = next(r for r in two["bench"] if r["variant"] == "fused")
        self.assertEqual(fused["ms"], 2.5)
        self.assertAlmostEqual(fused["tflops"], 40.0)
        self.assertTrue(fused["ok"])
        self.assertIn("the median of 2 rounds", attention_table.render(two))
        self.assertNotIn("rounds", attention_table.render(attention_table.pack(
            rounds[:1], "call")))
        # A later call's packed data still replaces an earlier one's point.
        earlier = self.write("earlier.json", json.dumps(two))
        later = attention_table.pack([earlier, rounds[2]], "later")
        fused = next(r for r in later["bench"] if r["variant"] == "fused")
        self.assertEqual((fused["ms"], fused.get("rounds_ms")), (1.0, None))


class AttentionPoints(unittest.TestCase):
    SELECTIONS = [[], ["--dtypes", "bf16", "--dims", "256", "--causal", "1"],
                  ["--dims", "64,128", "--dtypes", "fp32,fp16"]]

    def peers_list(self, flags):
        return subprocess.run(
            [sys.executable, os.path.join(HERE, "attention_peers.py"), "--list",
             "--grid", "--shapes", attention_grid.format_shapes(attention_grid.LOW_PAR)]
            + flags, capture_output=True, text=True, check=True).stdout

    def peers_refusal(self, flags):
        """attention_peers.py --list's error message for flags it refuses."""
        run = subprocess.run(
            [sys.executable, os.path.join(HERE, "attention_peers.py"), "--list"] + flags,
            capture_output=True, text=True)
        self.assertEqual(run.returncode, 2)
        return run.stderr

    def test_the_grid_is_every_dtype_dim_and_causal_and_the_low_par_shapes(self):
        lines = self.peers_list([]).splitlines()
        self.assertEqual(len(lines), 3 * (18 + len(attention_grid.LOW_PAR)) * 2)
        self.assertIn("bf16 1 8 16384 256 1", lines)
        self.assertIn("fp16 1 1 3000 128 0", lines)
        for dtype, b, h, n, d, _ in (line.split() for line in lines):
            b, h, n = int(b), int(h), int(n)
            self.assertTrue(attention_grid.on_grid(b, h, n, int(d)) or
                            (b * h <= 8 and 1000 <= n <= 8192), (b, h, n, d))

    def test_variants_names_only_the_peers_there_are(self):
        # --variants narrows the peers (attention_ncu.sh runs one of them
        # --once); an unknown name is refused, naming those there are.
        self.assertIn("fp16 1 4 4096 128 0", self.peers_list(
            ["--variants", "sdpa-cudnn", "--once"]).splitlines())
        self.assertIn("unknown variant cudnn (of eager, eager-tf32, sdpa-flash, "
                      "sdpa-cudnn, sdpa-efficient)",
                      self.peers_refusal(["--variants", "sdpa-cudnn,cudnn"]))

    def test_inputs_names_only_the_draws_there_are(self):
        self.assertIn("--inputs: invalid choice: 'randn' (choose from 'kbench', "
                      "'torch-rand')", self.peers_refusal(["--inputs", "randn"]))

    def test_kbench_inputs_are_drawn_in_float32_then_rounded(self):
        # draw() with a stand-in torch that records what it was asked: the
        # default draw is float32 rounded to the dtype (kbench's seeded
        # inputs), torch-rand the dtype itself.
        import attention_peers

        class Tensor:
            def __init__(self, log, dtype):
                self.log, self.dtype = log, dtype

            def __mul__(self, k):
                self.log.append(("mul", k, self.dtype))
                return self

            def __sub__(self, k):
                self.log.append(("sub", k, self.dtype))
                return self

            def to(self, dtype):
                self.log.append(("to", dtype))
                return Tensor(self.log, dtype)

        class Torch:
            float32 = "float32"

            def __init__(self):
                self.log = []

            def rand(self, shape, device, dtype, generator):
                self.log.append(("rand", dtype))
                return Tensor(self.log, dtype)

        torch = Torch()
        self.assertEqual(attention_peers.draw(torch, "kbench", (1,), "half", None).dtype,
                         "half")
        self.assertEqual(torch.log, [("rand", "float32"), ("mul", 2, "float32"),
                                     ("sub", 1, "float32"), ("to", "half")])
        torch = Torch()
        attention_peers.draw(torch, "torch-rand", (1,), "half", None)
        self.assertEqual(torch.log, [("rand", "half"), ("mul", 2, "half"),
                                     ("sub", 1, "half")])

    def bench(self):
        bench = os.environ.get("KBENCH_ATTENTION_BENCH")
        if not bench:
            self.skipTest("KBENCH_ATTENTION_BENCH names no built bench")
        return bench

    def test_the_grid_file_is_what_the_bench_prints(self):
        # attention_grid.json is generated from the C++ list, never edited.
        printed = subprocess.run([self.bench(), "--print-grid"], capture_output=True,
                                 text=True, check=True).stdout
        with open(os.path.join(HERE, "attention_grid.json"), encoding="utf-8") as f:
            self.assertEqual(f.read(), printed,
                             "regenerate it: kbench_attention_bench --print-grid "
                             "> tools/bench/attention_grid.json")

    def test_the_bench_refuses_bad_flags_naming_them(self):
        for flags, message in ((["--dtypes", "fp8"], "--dtypes"),
                               (["--shapes", "1,2,3"], "--shapes: '1,2,3' is not B,H,N,D"),
                               (["--shapes", "1,0,64,64"], "'0' in '1,0,64,64'"),
                               (["--splits", "0"], "--splits"),
                               (["--variants", "slow"], "unknown variant slow"),
                               (["--causal", "2"], "--causal")):
            run = subprocess.run([self.bench(), "--list"] + flags, capture_output=True,
                                 text=True)
            self.assertEqual(run.returncode, 2, flags)
            self.assertIn(message, run.stderr, flags)

    def test_the_bench_lists_the_same_points(self):
        bench = self.bench()
        for flags in self.SELECTIONS:
            listed = subprocess.run(
                [bench, "--list", "--grid", "--shapes",
                 attention_grid.format_shapes(attention_grid.LOW_PAR)] + flags,
                capture_output=True, text=True, check=True).stdout
            self.assertEqual(listed, self.peers_list(flags), flags)


if __name__ == "__main__":
    unittest.main()
