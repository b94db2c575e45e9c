#!/usr/bin/env python3
"""A whole lab on the GPU machine, through the kbench CLI alone: an
instructor, five learners, two assignments, and kernels from the starters
(docs/examples/kernels) with deliberate mistakes.

The script makes a store with the cohort (kbench-server admin), starts
kbench-server with authentication on a free loopback port, and then:
  lab1, vector add n = 2^20 and 2^24 beside naive and vectorized:
    ada  vector_add_vectorized.cu                 counts
    bob  vector_add_naive.cu                      counts
    cy   naive with a + a for a + b               fails verification
    dan  naive launched with a quarter of the grid fails verification
    eve  nothing                                  not started
  lab2, attention B=1 H=8 N=512 d=64 causal fp16 beside naive and fused:
    ada  attention_tiled.cu                       counts
    bob  attention_naive.cu                       counts
    cy   naive with the causal mask dropped       fails verification
    dan  naive with a typo                        does not compile
Expected: on lab1 ada ranks at or above bob (vectorized loads are not
slower), cy and dan are stuck with "failed verification", eve is "not
started"; dan's compile error is kept as why his lab2 submission does
not count; a learner's leaderboard hides the others' names; the
instructor's re-run of lab1's top two counts again on the same GPU and
leaves the leaderboard as it was; the gradebook has one row per learner.
Then, outside the labs: a kernel that prints comes back with what it
printed (captured by the worker); a kernel that never returns is stopped by
the stall watchdog (the server runs with --max-stall-seconds STALL), the
learner is told so, and the next run verifies. Prints every table it read;
exits 1 if any expectation fails.

Usage: course_check.py --server-bin PATH --kbench PATH --kernels DIR --out DIR
       [--backend cpu]
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

LEARNERS = ["ada", "bob", "cy", "dan", "eve"]

LAB1 = """name: lab1
title: Vector add, faster than naive
submissions-per-hour: 10
problems:
  op: vector_add
  axes: {n: [2^20, 2^24]}
  variant: [naive, vectorized]
  timing: {budget-ms: 300}
"""

LAB2 = """name: lab2
title: Causal attention in fp16
submissions-per-hour: 10
problems:
  op: attention
  axes: {batch: 1, heads: 8, seq: 512, head-dim: 64, causal: true}
  dtype: fp16
  variant: [naive, fused]
  timing: {budget-ms: 300}
"""


# The server's stall bound: long enough for any step of the labs' runs,
# short enough that the spinning kernel costs little device time.
STALL_SECONDS = 20

SPIN = """// kbench: grid=cdiv(n,256) block=256
extern "C" __global__ void spin(const kbench_t* a, const kbench_t* b, kbench_t* c, long long n) {
  // clock64() is read anew each time, so the compiler cannot drop the loop
  // (it dropped a loop on a volatile local: the kernel returned at once).
  const long long start = clock64();
  while (clock64() - start >= 0) {}
}
"""


def run(command, env=None, timeout=600):
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=env)


class Course:
    def __init__(self, args, work):
        self.args = args
        self.work = work
        self.store = os.path.join(work, "course.sqlite")
        self.tokens = {}
        self.server = None
        self.address = None

    def admin(self, *command):
        result = run([self.args.server_bin, "admin", *command, "--store", self.store])
        if result.returncode != 0:
            raise RuntimeError(f"admin {command}: {result.stderr}")
        return result.stdout.strip()

    def start(self):
        self.admin("add-cohort", "lab-course")
        self.tokens["grace"] = self.admin("add-user", "grace", "--role", "instructor",
                                          "--cohort", "lab-course")
        for learner in LEARNERS:
            self.tokens[learner] = self.admin("add-user", learner, "--cohort", "lab-course")
        log = open(os.path.join(self.args.out, "course_server.log"), "w")
        self.server = subprocess.Popen(
            [self.args.server_bin, "--backend", self.args.backend, "--listen", "127.0.0.1:0",
             "--http", "off", "--store", self.store, "--auth", "on",
             "--max-stall-seconds", str(STALL_SECONDS)],
            stdout=subprocess.PIPE, stderr=log, text=True)
        for line in self.server.stdout:
            match = re.match(r"kbench-server listening on (127\.0\.0\.1:\d+)", line)
            if match:
                self.address = match.group(1)
                break
        if self.address is None:
            raise RuntimeError("the server did not start; see course_server.log")

    def stop(self):
        if self.server:
            self.server.terminate()
            self.server.wait(timeout=60)

    def kbench(self, user, *command):
        env = dict(os.environ, KBENCH_TOKEN=self.tokens[user])
        return run([self.args.kbench, "--server", self.address, *command], env=env)

    def write(self, name, text):
        path = os.path.join(self.work, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def starter(self, name):
        with open(os.path.join(self.args.kernels, name)) as f:
            return f.read()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--server-bin", required=True)
    parser.add_argument("--kbench", required=True)
    parser.add_argument("--kernels", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--backend", default="cuda",
                        help="cpu only rehearses the script: a CPU server runs no kernel")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    ok = True

    def expect(condition, what):
        nonlocal ok
        print(("ok:     " if condition else "FAILED: ") + what)
        ok &= bool(condition)

    with tempfile.TemporaryDirectory() as work:
        course = Course(args, work)
        course.start()
        try:
            for lab in (LAB1, LAB2):
                created = course.kbench("grace", "assignment", "create",
                                        course.write("lab.yaml", lab))
                print(created.stdout, created.stderr)
                expect(created.returncode == 0, "grace creates " + lab.split()[1])

            naive = course.starter("vector_add_naive.cu")
            kernels = {
                ("lab1", "ada"): ("vector_add_vectorized.cu",
                                  course.starter("vector_add_vectorized.cu"), 0),
                ("lab1", "bob"): ("vector_add_naive.cu", naive, 0),
                ("lab1", "cy"): ("add_wrong.cu", naive.replace("a[i] + b[i]", "a[i] + a[i]"), 1),
                ("lab1", "dan"): ("add_short_grid.cu",
                                  naive.replace("grid=cdiv(n,256)", "grid=cdiv(n,1024)"), 1),
                ("lab2", "ada"): ("attention_tiled.cu", course.starter("attention_tiled.cu"), 0),
                ("lab2", "bob"): ("attention_naive.cu", course.starter("attention_naive.cu"), 0),
            }
            # A compile error: kept, and shown as why the submission does not count.
            kernels[("lab2", "dan")] = ("attention_typo.cu", course.starter(
                "attention_naive.cu").replace("const int keys", "const int keys keys", 1), 1)
            attention = course.starter("attention_naive.cu")
            unmasked = attention.replace("causal ? i + 1 : N", "N", 1)
            if unmasked != attention:
                kernels[("lab2", "cy")] = ("attention_unmasked.cu", unmasked, 1)
            else:
                print("note: the causal mask of attention_naive.cu was not found; cy skips lab2")
            for (lab, learner), (name, source, code) in kernels.items():
                path = course.write(name, source)
                submitted = course.kbench(learner, "--json", "submit", lab, path)
                open(os.path.join(args.out, f"submit_{lab}_{learner}.json"), "w").write(
                    submitted.stdout)
                summary = (submitted.stderr.strip().splitlines() or [""])[-1]
                expect(submitted.returncode == code,
                       f"{learner} submits {name} to {lab}: exit {submitted.returncode} "
                       f"(expected {code}) {summary}")
                if submitted.returncode in (0, 1) and submitted.stdout.strip():
                    report = json.loads(submitted.stdout)
                    print(f"  score {report.get('score_ms')} ms, counts "
                          f"{report.get('counts', False)}, why not: {report.get('why_not', '')}")
                    compiled = report["problems"][0].get("result", {}).get("compile", {})
                    if name == "attention_typo.cu":
                        continue  # it never compiled
                    expect(compiled.get("arch", "").startswith("sm_")
                           and int(compiled.get("registers_per_thread", 0)) > 0,
                           f"  the report says how {name} compiled: {compiled.get('arch')}, "
                           f"{compiled.get('registers_per_thread')} registers")

            for lab in ("lab1", "lab2"):
                table = course.kbench("grace", "leaderboard", lab)
                print(table.stdout, table.stderr)
                open(os.path.join(args.out, f"leaderboard_{lab}.txt"), "w").write(table.stdout)
            board = json.loads(course.kbench("grace", "--json", "leaderboard", "lab1").stdout)
            ranks = {e["user"]: e["rank"] for e in board.get("entries", [])}
            expect(set(ranks) == {"ada", "bob"}, f"lab1 ranks ada and bob only: {ranks}")
            expect(ranks.get("ada", 99) <= ranks.get("bob", 0),
                   "vectorized ranks at or above naive on lab1")
            expect(board.get("without_counting") == 2, "cy and dan have nothing counting on lab1")
            typo = json.loads(open(os.path.join(args.out, "submit_lab2_dan.json")).read() or "{}")
            expect("error" in typo.get("why_not", "") and "attention_typo.cu" in
                   typo.get("why_not", ""),
                   f"dan's compile error is why his lab2 submission does not count: "
                   f"{typo.get('why_not', '')[:300]}")
            mine = json.loads(course.kbench("bob", "--json", "leaderboard", "lab1").stdout)
            names = [e.get("user", "") for e in mine.get("entries", [])]
            expect(sorted(names) == ["", "bob"], f"bob sees only his own name: {names}")

            rerun = course.kbench("grace", "assignment", "rerun", "lab1", "--top", "2")
            print(rerun.stdout, rerun.stderr[-2000:])
            open(os.path.join(args.out, "rerun_lab1.txt"), "w").write(rerun.stdout)
            expect(rerun.returncode == 0 and rerun.stdout.count("NVIDIA") >= 4
                   and "does not count" not in rerun.stdout,
                   "grace re-runs lab1's top 2: both count again, each score with its GPU")
            after = json.loads(course.kbench("grace", "--json", "leaderboard", "lab1").stdout)
            expect({e["user"]: e["rank"] for e in after.get("entries", [])} == ranks and
                   all(e["attempts"] == 1 for e in after.get("entries", [])),
                   "the re-runs leave the leaderboard's ranks and attempts as they were")

            roster = course.kbench("grace", "roster")
            print(roster.stdout, roster.stderr)
            open(os.path.join(args.out, "roster.txt"), "w").write(roster.stdout)
            expect("cy on lab1" in roster.stdout and "failed verification" in roster.stdout,
                   "the roster says cy is stuck on lab1, and why")
            grades = course.kbench("grace", "roster", "--gradebook").stdout
            open(os.path.join(args.out, "gradebook.csv"), "w").write(grades)
            print(grades)
            rows = {line.strip().split(",")[0]: line.strip().split(",")[1:]
                    for line in grades.splitlines()[1:] if line.strip()}
            expect(set(rows) == set(LEARNERS), f"one gradebook row per learner: {sorted(rows)}")
            expect(rows.get("eve") == ["not started", "not started"], "eve has not started")

            # printf, through the worker's capture, back in the CLI's table.
            chatty = naive.replace("if (i < n)", 'if (i == 0) printf("hello from %lld elements\\n", n);\n  if (i < n)', 1)
            expect(chatty != naive, "the naive starter has the line the printf goes before")
            printed = course.kbench("ada", "vector-add", "--n", "4096", "--variant", "naive",
                                    "--kernel", course.write("hello.cu", chatty))
            print(printed.stdout, printed.stderr[-2000:])
            expect(printed.returncode == 0 and "printed by hello.cu" in printed.stdout
                   and "hello from 4096 elements" in printed.stdout,
                   "what a kernel prints comes back in the table")

            # A kernel that never returns: stopped by the watchdog, and said so.
            started = time.monotonic()
            spun = course.kbench("ada", "vector-add", "--n", "4096", "--variant", "naive",
                                 "--kernel", course.write("spin.cu", SPIN))
            took = time.monotonic() - started
            print(spun.stdout, spun.stderr[-2000:])
            open(os.path.join(args.out, "spin.txt"), "w").write(
                f"{spun.stdout}\n{spun.stderr}\ntook {took:.1f} s\n")
            expect(spun.returncode != 0 and "the learner's kernel was stopped" in spun.stderr,
                   f"a kernel that never returns is stopped and the learner told "
                   f"(exit {spun.returncode}, {took:.1f} s, bound {STALL_SECONDS} s)")
            # The worker restarts (about a second); a learner retrying
            # meanwhile is told no device is ready, so wait for it.
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline:
                info = course.kbench("ada", "--json", "info")
                if info.returncode == 0 and json.loads(info.stdout)["devices"][0].get("healthy"):
                    break
                time.sleep(0.5)
            after_spin = course.kbench("ada", "vector-add", "--n", "4096", "--variant", "naive",
                                       "--kernel", course.write("vector_add_naive.cu", naive))
            print(after_spin.stdout, after_spin.stderr[-2000:])
            expect(after_spin.returncode == 0, "the next run, on the restarted worker, verifies")
        finally:
            course.stop()
    print("course check:", "OK" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
