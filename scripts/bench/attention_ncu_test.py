#!/usr/bin/env python3
"""Tests of ncu's readings of the misses: attention_ncu.py reads ncu's
output (testdata/ncu_stdout.csv: ncu's stdout with its raw page, made up,
not a measurement) and packs the records of calls (testdata/
attention_ncu.json, made up too). Run by ctest (attention_ncu_scripts)."""
import json
import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "testdata")
sys.path.insert(0, HERE)
import attention_ncu  # noqa: E402

POINT = "fp16 4 16 4096 128 0"


def fixture(name):
    with open(os.path.join(DATA, name)) as f:
        return f.read()


class Parse(unittest.TestCase):
    def setUp(self):
        self.record = attention_ncu.parse(fixture("ncu_stdout.csv"), POINT)

    def test_reads_the_fused_launch_and_not_the_combine(self):
        self.assertIn("FusedWgmmaKernel<__half, 128, 128, 2, 2, false>",
                      self.record["kernel"])
        self.assertEqual(self.record["metrics"]["launch__grid_size"], 132)
        self.assertEqual(attention_ncu.short_kernel(self.record["kernel"]),
                         "FusedWgmmaKernel<__half, 128, 128, 2, 2, false>")

    def test_values_units_and_the_bench_check(self):
        m = self.record["metrics"]
        self.assertEqual(m["gpu__time_duration.sum"], 1234567.0)  # "1,234,567"
        self.assertNotIn("sm__pipe_xu_cycles_active.avg.pct_of_peak_sustained_elapsed",
                         m)  # n/a
        self.assertEqual(self.record["units"]["gpu__time_duration.sum"], "nsecond")
        self.assertIs(self.record["ok"], True)

    def test_top_three_stalls_without_selected(self):
        self.assertEqual(self.record["stalls"], [["barrier", 2.5],
                                                 ["math_pipe_throttle", 0.95],
                                                 ["wait", 0.9]])

    def test_figures_of_the_page(self):
        f = attention_ncu.reading(self.record)
        self.assertEqual(f["tensor"], 41.2)        # the busier of gmma, hmma
        self.assertEqual(f["fma"], 12.3)
        self.assertIsNone(f["xu"])
        self.assertEqual(f["dram"], 35.25)         # gpu__dram_throughput first
        self.assertEqual((f["achieved"], f["theoretical"]), (17.9, 18.75))
        self.assertEqual(f["sm_active"], 80.0)
        self.assertAlmostEqual(f["us"], 1234.567)
        self.assertTrue(attention_ncu.rule(f, "fp16").startswith(
            "warps wait at a barrier"))

    def test_no_fused_launch_is_an_error_naming_ncu_s(self):
        with self.assertRaisesRegex(ValueError, r"exit status 124, timed out\): "
                                    r"==ERROR== The application timed out"):
            attention_ncu.parse("==PROF== Connected\n==ERROR== The application "
                                "timed out\n", POINT, 124)

    def test_the_details_page_too(self):
        text = ('"ID","Kernel Name","Section Name","Metric Name","Metric Unit",'
                '"Metric Value"\n'
                '"0","FusedMmaKernel<float>(float *)","Raw",'
                '"sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_elapsed","%",'
                '"1,075.5"\n')
        self.assertEqual(attention_ncu.reading(attention_ncu.parse(text, POINT))["fma"],
                         1075.5)

    def test_rules_by_dtype(self):
        f = {"sm_active": 95.0, "dram": 10.0, "tensor": 80.0, "fma": 20.0,
             "xu": 10.0, "stalls": [["long_scoreboard", 2.0]]}
        self.assertEqual(attention_ncu.rule(f, "bf16"), "math pipe busy most of the time")
        self.assertEqual(attention_ncu.rule(f, "fp32"),
                         "warps wait for global memory (L1TEX) results")
        self.assertTrue(attention_ncu.rule(dict(f, sm_active=50.0), "bf16")
                        .startswith("SMs idle"))


class Pack(unittest.TestCase):
    def test_merges_calls_and_the_later_reading_wins(self):
        with tempfile.TemporaryDirectory() as d:
            first = os.path.join(d, "a.json")
            with open(first, "w") as f:
                json.dump(attention_ncu.pack([os.path.join(DATA, "attention_ncu.json")]), f)
            later = os.path.join(d, "b.jsonl")
            with open(later, "w") as f:
                f.write(json.dumps({"point": POINT, "error": "again"}) + "\n")
            data = attention_ncu.pack([first, later], "call B", "NVIDIA H200", "v")
        self.assertEqual(data["command"], [
            "scripts/bench/attention_ncu.sh .gpu docs/perf/data/attention.json",
            "call B"])
        self.assertEqual(data["gpu"], "NVIDIA H200")
        self.assertEqual(len(data["points"]), 4)
        self.assertEqual(data["points"][0], {"point": POINT, "error": "again"})


if __name__ == "__main__":
    unittest.main()
