"""The Python client (client/python/kbench) against a CPU kbench-server it
starts: info, runs of both ops with their rows and speedups, a sweep, the
history, assignments and leaderboards (a submission is refused: a CPU
server runs no learner's kernel), refusals as KbenchError naming the field, the token kept off the
network in clear text, and frame() (a DataFrame when pandas is installed,
else an ImportError naming it). Needs PYTHONPATH=build/python and
KBENCH_SERVER_BIN (ctest sets both)."""

import json
import os
import re
import subprocess
import sys
import tempfile
import time
import unittest

import grpc

import kbench


class PythonClient(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.state = tempfile.TemporaryDirectory(prefix="kbench-python-")
        env = dict(os.environ, KBENCH_STATE_DIR=cls.state.name, TMPDIR=cls.state.name)
        env.pop("KBENCH_TOKEN", None)
        cls.server = subprocess.Popen(
            [os.environ["KBENCH_SERVER_BIN"], "--listen", "127.0.0.1:0", "--http", "off",
             "--backend", "cpu"],
            stdout=subprocess.PIPE, stderr=sys.stderr, env=env, text=True)
        deadline = time.monotonic() + 60
        cls.address = None
        while time.monotonic() < deadline:
            line = cls.server.stdout.readline()
            found = re.search(r"listening on (127\.0\.0\.1:\d+)", line)
            if found:
                cls.address = found.group(1)
                break
        if cls.address is None:
            cls.server.kill()
            raise RuntimeError("kbench-server did not start")
        os.environ["XDG_CONFIG_HOME"] = cls.state.name  # no credentials file
        os.environ.pop("KBENCH_TOKEN", None)
        cls.client = kbench.Client(cls.address, timeout_s=120)

    @classmethod
    def tearDownClass(cls):
        cls.server.terminate()
        cls.server.wait(timeout=30)
        cls.state.cleanup()

    def test_info_names_the_backend_and_its_ops(self):
        info = self.client.info()
        self.assertEqual(info["backend"], "cpu")
        self.assertIn("attention", [op["op"] for op in info["ops"]])

    def test_a_vector_add_gives_a_row_per_variant_with_numbers_and_a_speedup(self):
        run = self.client.run_vector_add(n=4096, variants=["naive", "vectorized"],
                                         budget_ms=100, label="py-lab")
        self.assertTrue(run["all_verified"])
        self.assertEqual(run["op"], "vector_add")
        self.assertEqual(run["problem"], {"n": 4096})
        naive, vectorized = run["results"]
        self.assertEqual(naive["verdict"], "baseline")
        self.assertIsInstance(naive["median_ms"], float)
        self.assertGreater(naive["median_ms"], 0)
        self.assertIsInstance(naive["samples"], int)
        self.assertTrue(vectorized["verified"])
        self.assertAlmostEqual(vectorized["speedup"],
                               naive["median_ms"] / vectorized["median_ms"], places=9)
        self.assertIn(vectorized["verdict"],
                      ["faster", "slower", "no_difference", "too_few_samples"])
        # The history has it, under its label.
        self.assertIn(run["run_id"], [r["run_id"] for r in self.client.runs(label="py-lab")])

    def test_a_sweep_runs_every_point_of_the_grid(self):
        rows = self.client.sweep("attention", {"seq_len": [16, 32], "causal": [False, True]},
                                 variants=["naive", "fused"], budget_ms=30)
        self.assertEqual(len(rows), 8)  # 4 points, 2 variants each
        self.assertEqual(sorted({(r["seq_len"], r["causal"]) for r in rows}),
                         [(16, False), (16, True), (32, False), (32, True)])
        self.assertTrue(all(r["verified"] for r in rows))

    def test_a_refused_request_is_a_kbench_error_naming_the_field(self):
        with self.assertRaises(kbench.KbenchError) as refused:
            self.client.run_attention(seq_len=1 << 20, budget_ms=30)
        self.assertEqual(refused.exception.code, grpc.StatusCode.INVALID_ARGUMENT)
        self.assertIn("seq_len", refused.exception.message)
        with self.assertRaises(ValueError):
            self.client.run_vector_add(n=64, dtype="int8")

    def test_the_token_never_goes_to_another_host_in_clear_text(self):
        with self.assertRaisesRegex(ValueError, "clear text"):
            kbench.Client("192.0.2.1:50051", token="kbt_secret")
        kbench.Client("127.0.0.1:1", token="kbt_secret")  # loopback: allowed

    def test_frame_makes_a_dataframe_or_names_pandas(self):
        run = self.client.run_vector_add(n=1024, variants=["naive"], budget_ms=30)
        try:
            import pandas  # noqa: F401
        except ImportError:
            with self.assertRaisesRegex(ImportError, "pandas"):
                kbench.frame(run)
            print("frame: pandas is not installed; checked the ImportError instead",
                  file=sys.stderr)
            return
        table = kbench.frame(run)
        self.assertEqual(list(table["variant"]), ["naive"])
        self.assertEqual(table["n"][0], 1024)

    def test_assignments_leaderboards_and_a_submission_a_cpu_server_refuses(self):
        from kbench.v1 import assignment_pb2, assignment_pb2_grpc
        # An assignment, as `kbench assignment create` writes one (the caller
        # is the local admin of a server without identities).
        lab = assignment_pb2.Assignment(name="py-lab", op="vector_add", baselines=["naive"])
        lab.problems.add().vector_add.n = 4096
        stub = assignment_pb2_grpc.AssignmentsStub(grpc.insecure_channel(self.address))
        stub.SaveAssignment(assignment_pb2.SaveAssignmentRequest(assignment=lab), timeout=30)
        names = [a["name"] for a in self.client.assignments()]
        self.assertIn("py-lab", names)
        self.assertEqual(self.client.leaderboard("py-lab"), [])
        with self.assertRaises(kbench.KbenchError) as refused:
            self.client.leaderboard("no-such-lab")
        self.assertEqual(refused.exception.code, grpc.StatusCode.NOT_FOUND)
        starter = os.path.join(os.path.dirname(__file__), "..", "docs", "examples", "kernels",
                               "vector_add_naive.cu")
        with self.assertRaises(kbench.KbenchError) as refused:
            self.client.submit("py-lab", starter)
        self.assertEqual(refused.exception.code, grpc.StatusCode.FAILED_PRECONDITION)
        self.assertIn("needs a GPU", refused.exception.message)

    def test_a_kernel_file_is_read_as_the_cli_reads_it_and_refused_without_a_gpu(self):
        starter = os.path.join(os.path.dirname(__file__), "..", "docs", "examples", "kernels",
                               "vector_add_naive.cu")
        kernel = kbench.kernel_source(starter)
        self.assertEqual(kernel.name, "vector_add_naive.cu")
        self.assertEqual(kernel.entry, "vector_add_naive")
        self.assertEqual(kernel.launch.grid, "cdiv(n,256)")
        self.assertEqual(kernel.launch.block, "256")
        self.assertEqual(kbench.kernel_source(starter, block="128").launch.block, "128")
        with self.assertRaises(kbench.KbenchError) as refused:
            self.client.run_vector_add(n=4096, variants=["naive"], kernels=[starter])
        self.assertEqual(refused.exception.code, grpc.StatusCode.FAILED_PRECONDITION)
        self.assertIn("needs a GPU", refused.exception.message)

    def test_the_notebook_example_runs(self):
        path = os.path.join(os.path.dirname(__file__), "..", "docs", "examples",
                            "kbench_notebook.ipynb")
        with open(path, encoding="utf-8") as f:
            cells = [c for c in json.load(f)["cells"] if c["cell_type"] == "code"]
        self.assertGreater(len(cells), 3)
        scope = {}
        for cell in cells:
            code = "".join(cell["source"]).replace("localhost:50051", self.address)
            try:
                exec(compile(code, path, "exec"), scope)  # noqa: S102: our own example
            except ImportError as e:  # kbench.frame without pandas
                self.assertIn("pandas", str(e))


if __name__ == "__main__":
    unittest.main(verbosity=2)
