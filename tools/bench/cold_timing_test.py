#!/usr/bin/env python3
"""The peers' binding of kbench's L2 flush (cold_timing.load_l2_flush)
against the library the build makes (KBENCH_L2_FLUSH_LIB: the path of
libkbench_l2_flush.so), on a machine without a GPU (CI): the entry point
is exported under its C name, takes the declared arguments, and reports
the launch's CUDA error instead of crashing. On the GPU machine the flush
itself runs in every cold sample of the peers' scripts."""
import os
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cold_timing  # noqa: E402

LIB = os.environ.get("KBENCH_L2_FLUSH_LIB", "")


def has_gpu():
    try:
        out = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return out.returncode == 0 and "GPU" in out.stdout


class L2FlushLibrary(unittest.TestCase):
    def test_the_library_was_built(self):
        self.assertTrue(LIB and os.path.isfile(LIB), f"KBENCH_L2_FLUSH_LIB={LIB!r}")

    def test_without_a_device_the_flush_returns_a_cuda_error(self):
        if has_gpu():
            self.skipTest("a GPU is present: the flush would run (the GPU runs cover it)")
        _, flush = cold_timing.load_l2_flush(LIB)
        error = flush(None, 256, None, None)
        # cudaErrorInsufficientDriver (35), cudaErrorNoDevice (100), or any
        # other error of a machine without a GPU; never success.
        self.assertIsInstance(error, int)
        self.assertNotEqual(error, 0)

    def test_the_buffer_is_twice_the_l2_at_least_16_mib_in_whole_lines(self):
        size, _ = cold_timing.load_l2_flush(LIB)
        self.assertEqual(size(50 << 20), 100 << 20)  # the H100's 50 MiB
        self.assertEqual(size(0), 16 << 20)  # a device that reports no L2
        self.assertEqual(size((60 << 20) + 100) % 128, 0)
        self.assertGreaterEqual(size((60 << 20) + 100), 2 * (60 << 20))

    def test_a_missing_library_is_an_error_naming_it(self):
        with self.assertRaises(OSError) as caught:
            cold_timing.load_l2_flush("/nonexistent/libkbench_l2_flush.so")
        self.assertIn("libkbench_l2_flush.so", str(caught.exception))


if __name__ == "__main__":
    unittest.main(verbosity=2)
