#!/usr/bin/env python3
"""Tests of the docs/perf generators: the generated section is replaced and
the prose around it kept, and each table compares only like-for-like timing
methods. Run by ctest (perf_docs_scripts)."""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import attention_table  # noqa: E402
import perf_doc  # noqa: E402
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

    def test_is_deterministic(self):
        self.assertEqual(vector_add_table.render(VECTOR_ADD),
                         vector_add_table.render(VECTOR_ADD))


class AttentionTable(unittest.TestCase):
    def test_keeps_server_runs_apart_from_the_bench_and_its_ratios(self):
        key = {"dtype": "fp16", "head_dim": 64, "causal": False, "seq_len": 512}
        data = {"command": "c", "bench": [
            dict(key, variant="fused", tflops=300.0),
            dict(key, variant="sdpa-flash", tflops=200.0)],
            "server": [{"request": {"dtype": "DTYPE_FP16",
                                    "attention": {"head_dim": 64, "causal": False,
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


if __name__ == "__main__":
    unittest.main()
