#!/usr/bin/env python3
"""The peers' binding of kbench's L2 flush (cold_timing.load_l2_flush) and
kernel clock (cold_timing.KernelClock) against the libraries the build
makes (KBENCH_L2_FLUSH_LIB and KBENCH_KERNEL_CLOCK_LIB: the paths of
libkbench_l2_flush.so and libkbench_kernel_clock.so), on a machine without
a GPU (CI): the entry points are exported under their C names, take the
declared arguments, and report the error instead of crashing; and the
method a peer's data records says which timer ran. On the GPU machine both
run in every cold sample of the peers' scripts."""
import os
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cold_timing  # noqa: E402

LIB = os.environ.get("KBENCH_L2_FLUSH_LIB", "")
CLOCK_LIB = os.environ.get("KBENCH_KERNEL_CLOCK_LIB", "")


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


class KernelClockLibrary(unittest.TestCase):
    def test_the_library_was_built_beside_the_flush(self):
        self.assertTrue(CLOCK_LIB and os.path.isfile(CLOCK_LIB), f"KBENCH_KERNEL_CLOCK_LIB={CLOCK_LIB!r}")
        self.assertEqual(os.path.basename(CLOCK_LIB), cold_timing.KERNEL_CLOCK_LIB)

    def test_without_a_device_the_clock_says_why_it_cannot_time(self):
        if has_gpu():
            self.skipTest("a GPU is present: the clock would time (the GPU runs cover it)")
        clock = cold_timing.KernelClock(CLOCK_LIB)
        with self.assertRaises(RuntimeError) as caught:
            clock.time(lambda: None, None)
        self.assertIn("kbench_kernel_clock_begin", str(caught.exception))
        with self.assertRaises(RuntimeError) as caught:
            clock.release()
        self.assertIn("kbench_kernel_clock_release", str(caught.exception))
        # The reason follows the call's name: CUDA's or CUPTI's error, never empty.
        self.assertGreater(len(str(caught.exception).split(": ", 1)[1]), 0)


class ColdStartMethod(unittest.TestCase):
    def test_the_method_names_the_clock_that_timed(self):
        flush = lambda: None  # noqa: E731
        by_clock = cold_timing.ColdStart(flush, clock=object()).method
        self.assertIn("CUPTI", by_clock)
        self.assertNotIn("events", by_clock)
        by_events = cold_timing.ColdStart(flush, None, "CUPTI: another profiler holds it").method
        self.assertIn("no kernel clock", by_events)
        self.assertIn("CUDA events", by_events)
        self.assertIn("another profiler holds it", by_events)
        for method in (by_clock, by_events):
            self.assertIn("kbench's own flush", method)


if __name__ == "__main__":
    unittest.main(verbosity=2)
