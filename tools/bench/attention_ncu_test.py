#!/usr/bin/env python3
"""Tests of ncu's readings of the misses: attention_ncu.py reads ncu's
output (testdata/ncu_stdout.csv: ncu's stdout with its raw page, made up,
not a measurement; ncu_peer_stdout.csv: the same of a peer's kernel),
attention_table.py misses lists the page's misses and render shows the
readings beside them (testdata/attention_ncu.json, made up too), and
attention_ncu.sh runs it all against a stand-in ncu and bench, as
attention_fp8_gpu.py's ncu step does against a stand-in ncu, server and CLI.
Run by ctest (attention_ncu_scripts)."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "testdata")
sys.path.insert(0, HERE)
import attention_ncu  # noqa: E402
import attention_table  # noqa: E402
from perf_docs_test import point, table_row  # noqa: E402

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
        self.assertTrue(attention_ncu.rule(f).startswith(
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
        record = attention_ncu.parse(text, POINT)
        self.assertEqual(attention_ncu.reading(record)["fma"], 1075.5)
        self.assertEqual(list(record["units"].values()), ["%"])

    def test_the_fp8_kernel_and_not_its_v_transpose_pass(self):
        text = ('"ID","Kernel Name","Section Name","Metric Name","Metric Unit",'
                '"Metric Value"\n'
                '"0","TransposeVKernel(const unsigned char *)","Raw",'
                '"sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_elapsed","%","1"\n'
                '"1","void FusedFp8Kernel<0>(CUtensorMap_st, int)","Raw",'
                '"sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_elapsed","%","7.5"\n')
        record = attention_ncu.parse(text, "fp8 1 16 16384 128 0")
        self.assertEqual(attention_ncu.short_kernel(record["kernel"]), "FusedFp8Kernel<0>")
        self.assertEqual(attention_ncu.reading(record)["fma"], 7.5)

    def test_a_peer_s_kernel_and_not_the_fused_one(self):
        text = fixture("ncu_peer_stdout.csv")
        record = attention_ncu.parse(text, POINT, peer="sdpa-cudnn")
        self.assertTrue(record["kernel"].startswith("cudnn_generated_fort_native_sdpa"))
        self.assertEqual(record["peer"], "sdpa-cudnn")
        self.assertNotIn("ok", record)  # no bench line: a peer has no check here
        self.assertEqual(attention_ncu.reading(record)["tensor_cycles"], 515000.0)
        with self.assertRaisesRegex(ValueError, "no launch of a fused kernel"):
            attention_ncu.parse(text, POINT)
        with self.assertRaisesRegex(ValueError, "no launch of sdpa-flash's kernel"):
            attention_ncu.parse(text, POINT, peer="sdpa-flash")
        with self.assertRaisesRegex(ValueError, "no kernel known for the peer eager"):
            attention_ncu.parse(text, POINT, peer="eager")
        self.assertEqual(attention_ncu.short_kernel(record["kernel"]), record["kernel"])

    def test_rules_in_order(self):
        f = {"sm_active": 95.0, "dram": 10.0, "tensor": 0.0, "fma": 20.0,
             "xu": 10.0, "stalls": [["long_scoreboard", 2.0]]}
        self.assertEqual(attention_ncu.rule(f),
                         "warps wait for global memory (L1TEX) results")
        self.assertEqual(attention_ncu.rule(dict(f, fma=75.0)),
                         "math pipe busy most of the time")
        self.assertEqual(attention_ncu.rule(dict(f, tensor=None, xu=50.0)),
                         "XU pipe (exp2 of the softmax) busy half the time or more")
        self.assertTrue(attention_ncu.rule(dict(f, sm_active=50.0, fma=75.0))
                        .startswith("SMs idle"))
        waiting = dict(f, stalls=[["wait", 1.4], ["long_scoreboard", 0.6]])
        self.assertTrue(attention_ncu.rule(waiting).startswith(
            "warps wait on fixed-latency dependencies"))
        self.assertEqual(attention_ncu.rule(dict(waiting, stalls=[["not_selected", 1.0]])),
                         "no rule: the stalls say where warps wait")


def bench():
    """Four misses: fp16 (cuDNN) and fp32 read by the fixture, bf16 (ncu
    failed there) and a low-parallelism fp16 shape not measured; one met
    point (fp16 at N 8192)."""
    return (point(390.0, flash=300.0, cudnn=400.0) +
            point(30.0, efficient=40.0, dtype="fp32", causal=True) +
            point(300.0, flash=250.0, dtype="bf16") +
            point(100.0, flash=90.0, b=1, h=4) +
            point(500.0, flash=300.0, cudnn=400.0, n=8192, b=2))


class Misses(unittest.TestCase):
    def misses(self, data, *flags):
        """attention_table.py misses FLAGS of `data`, its lines."""
        with tempfile.NamedTemporaryFile("w", suffix=".json") as f:
            json.dump(data, f)
            f.flush()
            return subprocess.run(
                [sys.executable, os.path.join(HERE, "attention_table.py"), "misses",
                 "--data", f.name, *flags], capture_output=True, text=True,
                check=True).stdout.splitlines()

    def test_misses_are_the_marked_points_furthest_first(self):
        data = {"command": "c", "server": [], "bench": bench()}
        listed = self.misses(data)
        self.assertEqual(listed, ["fp32 4 16 4096 128 1",   # 0.75 / 1.2
                                  "fp16 1 4 4096 128 0",    # 1.11 / 1.3
                                  "bf16 4 16 4096 128 0",   # 1.20 / 1.3
                                  POINT])                   # 0.97 / 1.0
        text = attention_table.render(data)
        marked = [line for line in text.splitlines()
                  if line.startswith("|") and "✗" in line]
        self.assertEqual(len(marked), len(listed))

    def test_with_the_peer_of_each_missed_goal(self):
        listed = self.misses({"command": "c", "server": [], "bench": bench()}, "--peers")
        self.assertEqual(listed, ["fp32 4 16 4096 128 1 sdpa-efficient",
                                  "fp16 1 4 4096 128 0 sdpa-flash",
                                  "bf16 4 16 4096 128 0 sdpa-flash",
                                  POINT + " sdpa-cudnn"])


class Section(unittest.TestCase):
    def render(self, ncu):
        text = attention_table.render({"command": "c", "server": [], "bench": bench()},
                                      ncu)
        return text.split("## Why the misses miss (ncu)")[1]

    def test_says_there_is_no_data_yet(self):
        self.assertIn("No ncu data yet: docs/perf/data/attention_ncu.json",
                      self.render(None))

    def test_a_row_per_missed_and_measured_point(self):
        section = self.render(json.loads(fixture("attention_ncu.json")))
        self.assertIn("2 of 4 missed points have a reading, 1 of them with their "
                      "peer's; 2 have none", section)
        self.assertIn("left out, 1 measured points that miss no goal", section)
        self.assertIn("NVIDIA H200", section)
        rows = [line for line in section.splitlines()
                if line.startswith("| fp") or line.startswith("| bf")]
        self.assertEqual(len(rows), 2)
        wgmma = table_row(section, "| fp16 | 4 | 16 | 4096 | 128 | no |")
        self.assertEqual(wgmma[6:13], ["fused/cuDNN 0.97 < 1.0",
                                       "`FusedWgmmaKernel<__half, 128, 128, 2, 2, false>`",
                                       "1235", "41", "515", "12", ""])
        self.assertEqual(wgmma[13:17], ["18 / 19", "80", "35",
                                        "barrier 2.5, math_pipe_throttle 0.95, wait 0.9"])
        # The peer's kernel on the line under it (40% of 1,250,000 cycles).
        lines = section.splitlines()
        below = lines[lines.index(next(x for x in lines if x.startswith(
            "| fp16 | 4 | 16 | 4096 | 128 | no |"))) + 1]
        peer = [c.strip() for c in below.strip("|").split("|")]
        self.assertEqual(peer[:6], [""] * 6)
        self.assertEqual(peer[6:11], [
            "peer: sdpa-cudnn", "`cudnn_generated_fort_native_sdpa_sm90_flash_fprop_"
            "wgmma_f16_knob_7_64x128x128_4x1x1_cga1x1x1_kernel0_0`", "1200", "40", "500"])
        fp32 = table_row(section, "| fp32 | 4 | 16 | 4096 | 128 | yes |")
        self.assertEqual(fp32[8], "2500")                   # 2.5 msecond
        self.assertEqual(fp32[-1], "math pipe busy most of the time")
        self.assertIn("1. SMs active < 80% of the elapsed cycles:", section)
        # Fused over its peer at the one point with both: tensor cycles
        # 515 / 500, time 1235 / 1200.
        self.assertIn("Where the peer's kernel was read too (1 points): fused's "
                      "tensor-pipe cycles over the peer's 1.03–1.03, its time under ncu "
                      "over the peer's 1.03–1.03; the top stall most often fused's "
                      "`barrier` (at 1 of 1), the peer's", section)

    def test_readings_from_another_gpu_than_the_tables_say_so(self):
        ncu = json.loads(fixture("attention_ncu.json"))
        report = {"request": {"dtype": "DTYPE_FP16", "attention": {
            "batch": 4, "heads": 16, "seq_len": 4096, "head_dim": 128, "causal": False}},
            "started": {"device": "NVIDIA H100 80GB HBM3"}}
        data = {"command": "c", "bench": bench(), "server": [report]}
        section = attention_table.render(data, ncu).split("## Why the misses miss (ncu)")[1]
        self.assertIn("The readings come from another GPU than the tables above "
                      "(NVIDIA H200; the tables: NVIDIA H100 80GB HBM3)", section)
        data["server"][0]["started"]["device"] = "NVIDIA H200"
        section = attention_table.render(data, ncu).split("## Why the misses miss (ncu)")[1]
        self.assertNotIn("another GPU", section)

    def test_leaves_out_readings_of_another_launch(self):
        # The fp16 reading was taken of a launch whose plan differs from the
        # data's (the kernel changed since); the fp32 one of the same plan.
        ncu = json.loads(fixture("attention_ncu.json"))
        for record in ncu["points"]:
            record["plan"] = "one pass: old"
        data = {"command": "c", "server": [], "bench": bench()}
        for line in data["bench"]:
            if line["variant"] == "fused":
                line["fused_plan"] = ("one pass: old" if line["dtype"] == "fp32"
                                      else "one pass: new")
        section = attention_table.render(data, ncu).split(
            "## Why the misses miss (ncu)")[1]
        self.assertIn("1 of 4 missed points have a reading, 0 of them with their "
                      "peer's; 2 have none", section)
        self.assertNotIn("peer: sdpa-cudnn", section)  # its point is left out
        self.assertIn("left out, 1 readings of another launch than this data's",
                      section)
        self.assertIsNotNone(table_row(section, "| fp32 | 4 | 16 | 4096 | 128 | yes |"))
        self.assertNotIn("| fp16 | 4 | 16 | 4096 | 128 | no |", section)


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
            "tools/bench/attention_ncu.sh .gpu docs/perf/data/attention.json",
            "call B"])
        self.assertEqual(data["gpu"], "NVIDIA H200")
        self.assertEqual(len(data["points"]), 5)  # the fused and the peer's of POINT
        self.assertEqual(data["points"][0], {"point": POINT, "error": "again"})
        self.assertEqual(data["points"][4]["peer"], "sdpa-cudnn")


FAKE_NCU = """#!/usr/bin/env bash
# A stand-in ncu: runs the program after its flags, then prints the fixture.
if [ "$1" = --version ]; then echo "Version 0 (fake)"; exit 0; fi
echo "$*" >>"$FAKE_LOG"
case " $* " in *" --print-units "*) [ -n "${FAKE_REJECT:-}" ] &&
  { echo "==ERROR== rejected"; exit 1; } ;; esac
kernel=
while [ $# -gt 0 ] && [ "${1##*/}" != kbench_attention_bench ] &&
  [ "$1" != python3 ]; do
  [ "$1" = -k ] && kernel=${2#regex:}
  shift
done
if [ "$1" = python3 ]; then
  # A peer: its command logged, not run (no PyTorch here), and the peer
  # fixture's kernel named as -k asks.
  echo "$*" >>"$FAKE_LOG"
  grep '^"' "$FIXTURE_PEER" | sed "s/cudnn_generated[^\\"]*/${kernel}_kernel/"
  exit
fi
"$@" || exit
grep '^"' "$FIXTURE"
"""
FAKE_BENCH = """#!/usr/bin/env bash
[ -n "${FAKE_OLD_BENCH:-}" ] && { echo "unknown argument --variants" >&2; exit 2; }
echo "$*" >>"$FAKE_LOG"
echo '{"source":"kbench","variant":"fused","ok":true,"fused_plan":"one pass: p"}'
"""


class Flags(unittest.TestCase):
    def test_full_reads_every_figure_of_the_page_and_known_only_two(self):
        full, known = attention_ncu.ncu_flags(), attention_ncu.ncu_flags(known=True)
        self.assertEqual(full[:4], ["--clock-control", "none", "--launch-count", "1"])
        metrics = full[full.index("--metrics") + 1].split(",")
        self.assertIn("--print-units", full)
        self.assertNotIn("--print-units", known)
        self.assertEqual(len(known[known.index("--metrics") + 1].split(",")), 2)
        for name in ("gpu__time_duration.sum", "sm__cycles_elapsed.avg",
                     "sm__pipe_xu_cycles_active.avg.pct_of_peak_sustained_elapsed"):
            self.assertIn(name, metrics)
        # Every metric asked for is one a record keeps (or the stalls).
        for name in metrics:
            if not name.startswith("regex:"):
                self.assertTrue(attention_ncu.kept(name), name)


class Script(unittest.TestCase):
    """attention_ncu.sh with a stand-in ncu, bench and nvidia-smi."""

    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)
        d = self.dir.name
        os.makedirs(os.path.join(d, "bin"))
        os.makedirs(os.path.join(d, "bundle", "lib"))
        for path, text in (("bin/ncu", FAKE_NCU),
                           ("bin/nvidia-smi", "#!/bin/sh\necho 'NVIDIA H200'\n"),
                           ("bundle/kbench_attention_bench", FAKE_BENCH)):
            with open(os.path.join(d, path), "w") as f:
                f.write(text)
            os.chmod(os.path.join(d, path), 0o755)
        self.data = os.path.join(d, "attention.json")
        with open(self.data, "w") as f:
            json.dump({"command": "c", "server": [], "bench": bench()}, f)
        self.out = os.path.join(d, "out")
        self.log = os.path.join(d, "calls.log")

    def run_script(self, **env):
        return subprocess.run(
            ["bash", os.path.join(HERE, "attention_ncu.sh"),
             os.path.join(self.dir.name, "bundle"), self.data],
            capture_output=True, text=True,
            env=dict(os.environ, OUT=self.out, FAKE_LOG=self.log,
                     FIXTURE=os.path.join(DATA, "ncu_stdout.csv"),
                     FIXTURE_PEER=os.path.join(DATA, "ncu_peer_stdout.csv"),
                     PATH=os.path.join(self.dir.name, "bin") + ":" +
                     os.environ["PATH"], **env))

    def calls(self):
        with open(self.log) as f:
            return f.read().splitlines()

    def test_measures_each_miss_with_the_bench_once(self):
        run = self.run_script(ONLY="^fp")
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        with open(os.path.join(self.out, "attention_ncu.json")) as f:
            data = json.load(f)
        self.assertEqual([(p["point"], p.get("peer")) for p in data["points"]],
                         [("fp32 4 16 4096 128 1", None), ("fp16 1 4 4096 128 0", None),
                          (POINT, None), ("fp32 4 16 4096 128 1", "sdpa-efficient"),
                          ("fp16 1 4 4096 128 0", "sdpa-flash"), (POINT, "sdpa-cudnn")])
        self.assertEqual(data["points"][5]["kernel"], "cudnn_kernel")
        self.assertEqual(data["gpu"], "NVIDIA H200")
        self.assertTrue(data["command"].startswith('ONLY="^fp" tools/bench/'))
        self.assertEqual(data["points"][0]["stalls"][0], ["barrier", 2.5])
        self.assertEqual(data["points"][0]["plan"], "one pass: p")
        calls = self.calls()
        self.assertEqual(calls[0], "--list --variants fused --once")  # its flags
        self.assertIn("-k regex:Fused(Wgmma|Mma|Fp8)Kernel", calls[1])
        self.assertIn("--shape 4,16,4096,128 --dtypes fp32 --causal 1 "
                      "--variants fused --once", calls[2])
        self.assertIn("[1/3] fp32 4 16 4096 128 1: FusedWgmmaKernel", run.stdout)
        self.assertTrue(os.path.exists(os.path.join(self.out, "ncu",
                                                    "fp32_4_16_4096_128_1.csv")))
        # Then each miss's peer, through attention_peers.py, with its kernel's filter.
        self.assertIn("-k regex:cudnn", calls[-2])
        self.assertEqual(calls[-1], "python3 tools/bench/attention_peers.py --shapes "
                         "4,16,4096,128 --dtypes fp16 --causal 0 --variants sdpa-cudnn --once")
        self.assertIn("[3/3] fp16 4 16 4096 128 0 sdpa-cudnn: cudnn_kernel", run.stdout)
        self.assertIn("3 of 3 points read, and 3 of 3 peers' kernels", run.stdout)
        self.assertTrue(os.path.exists(os.path.join(
            self.out, "ncu", "fp16_4_16_4096_128_0_sdpa-cudnn.csv")))

    def test_peers_0_leaves_the_peers_out(self):
        run = self.run_script(ONLY="^fp16 4", PEERS="0")
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertNotIn("attention_peers.py", "\n".join(self.calls()))
        with open(os.path.join(self.out, "attention_ncu.json")) as f:
            data = json.load(f)
        self.assertEqual([p["point"] for p in data["points"]], [POINT])
        self.assertTrue(data["command"].startswith('PEERS="0" ONLY="^fp16 4" '))

    def test_falls_back_to_the_known_metrics_and_keeps_them(self):
        run = self.run_script(ONLY="^fp16", FAKE_REJECT="1")
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertIn("again with the metrics known to work", run.stdout)
        ncu_calls = [c for c in self.calls() if c.startswith("--clock-control")]
        self.assertEqual(len(ncu_calls), 5)  # 2 points, one retried; 2 peers
        self.assertIn("--print-units", ncu_calls[0])
        self.assertNotIn("--print-units", ncu_calls[2])
        with open(os.path.join(self.out, "ncu",
                               "fp16_1_4_4096_128_0.first-try.log")) as f:
            self.assertIn("==ERROR== rejected", f.read())

    def test_stops_at_the_deadline(self):
        run = self.run_script(DEADLINE_S="0")
        self.assertEqual(run.returncode, 1)
        self.assertIn("out of time (DEADLINE_S=0): 4 points left out", run.stdout)
        with open(os.path.join(self.out, "attention_ncu.json")) as f:
            self.assertEqual(json.load(f)["points"], [])

    def test_exits_2_with_a_bench_without_once(self):
        run = self.run_script(FAKE_OLD_BENCH="1")
        self.assertEqual(run.returncode, 2)
        self.assertIn("has no --variants or --once", run.stderr)

    def test_exits_2_without_ncu(self):
        if shutil.which("ncu") or os.path.exists("/usr/local/cuda/bin/ncu"):
            self.skipTest("this machine has an ncu")
        os.remove(os.path.join(self.dir.name, "bin", "ncu"))
        run = self.run_script()
        self.assertEqual(run.returncode, 2)
        self.assertIn("ncu (Nsight Compute) is neither on PATH", run.stderr)


FP8_NCU = """#!/usr/bin/env bash
# A stand-in ncu with the server under it: runs the program after
# --log-file as its child, then writes the fixture, the kernel's name put
# in, to the log (FAKE_NCU_FAIL: the full metrics read nothing).
if [ "$1" = --version ]; then echo "Version 0 (fake)"; exit 0; fi
echo "$*" >>"$FAKE_LOG"
full=
case " $* " in *" --print-units "*) full=1 ;; esac
while [ "$1" != --log-file ]; do shift; done
log=$2
shift 2
"$@" &
child=$!
trap 'kill -TERM $child' TERM
wait $child
wait $child
if [ -n "${FAKE_NCU_FAIL:-}" ] && [ -n "$full" ]; then
  echo "==ERROR== no metric" >"$log"
else
  sed "s/FusedWgmmaKernel<__half, 128, 128, 2, 2, false>/$FAKE_KERNEL/" "$FIXTURE" >"$log"
fi
"""
FP8_SERVER = """#!/usr/bin/env bash
echo "kbench-server listening on 127.0.0.1:5555"
trap 'exit 0' TERM
while true; do sleep 0.1; done
"""
FP8_KBENCH = """#!/usr/bin/env bash
echo "$*" >>"$FAKE_LOG"
echo '{"results": [{"variant": "fused", "stats": {"median_ms": 1.0, "samples": 3},
  "verification": {"passed": true}, "config": "c"}]}'
"""


class Fp8Ncu(unittest.TestCase):
    """attention_fp8_gpu.py's ncu step with a stand-in ncu, server and CLI."""

    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)
        self.log = os.path.join(self.dir.name, "calls.log")
        for name, text in (("ncu", FP8_NCU), ("server", FP8_SERVER), ("kbench", FP8_KBENCH)):
            path = os.path.join(self.dir.name, name)
            with open(path, "w") as f:
                f.write(text)
            os.chmod(path, 0o755)

    def record(self, **env):
        import attention_fp8_gpu
        args = type("Args", (), {"server_bin": os.path.join(self.dir.name, "server"),
                                 "kbench": os.path.join(self.dir.name, "kbench")})
        env = dict({"FAKE_LOG": self.log, "FIXTURE": os.path.join(DATA, "ncu_stdout.csv"),
                    "FAKE_KERNEL": "FusedFp8Kernel<0>"}, **env)
        os.environ.update(env)
        try:
            return attention_fp8_gpu.ncu_record(args, os.path.join(self.dir.name, "ncu"),
                                                self.dir.name, "fp8")
        finally:
            for name in env:
                del os.environ[name]

    def calls(self):
        with open(self.log) as f:
            return [line.split() for line in f.read().splitlines()]

    def test_reads_the_fp8_launch_with_the_full_metrics(self):
        record = self.record()
        self.assertEqual(record["point"], "fp8 1 16 16384 128 0")
        self.assertEqual(attention_ncu.short_kernel(record["kernel"]), "FusedFp8Kernel<0>")
        self.assertEqual(attention_ncu.reading(record)["tensor"], 41.2)
        calls = self.calls()
        self.assertEqual(len(calls), 2)  # ncu once, the CLI once
        self.assertIn("--print-units", calls[0])
        self.assertIn("regex:Fused(Wgmma|Mma|Fp8)Kernel", calls[0])
        self.assertEqual(calls[1][calls[1].index("--dtype") + 1], "fp8")

    def test_falls_back_to_the_known_metrics_then_says_why_there_is_none(self):
        record = self.record(FAKE_NCU_FAIL="1")
        self.assertIn("FusedFp8Kernel", record["kernel"])  # the known metrics read it
        self.assertEqual([("--print-units" in c) for c in self.calls() if "--dtype" not in c],
                         [True, False])
        record = self.record(FAKE_NCU_FAIL="1", FIXTURE="/nonexistent")
        self.assertIn("no launch of a fused kernel", record["error"])


if __name__ == "__main__":
    unittest.main()
