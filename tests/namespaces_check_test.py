#!/usr/bin/env python3
"""Tests of namespaces_check.py: small trees in a temporary git repository,
each with one file whose namespace matches its folder or does not."""
import os
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import namespaces_check  # noqa: E402


def tree(files):
    """A git repository holding FILES ({path: text}); its path."""
    root = tempfile.mkdtemp()
    for path, text in files.items():
        os.makedirs(os.path.join(root, os.path.dirname(path)), exist_ok=True)
        with open(os.path.join(root, path), "w") as out:
            out.write(text)
    subprocess.run(["git", "init", "-q", root], check=True)
    subprocess.run(["git", "-C", root, "add", "-A"], check=True)
    return root


def source(*namespaces):
    """A file that opens NAMESPACES in turn and closes them as clang-format does."""
    opened = "".join(f"namespace {name} {{\n" for name in namespaces)
    closed = "".join(f"}}  // namespace {name}\n" for name in reversed(namespaces))
    return opened + "int x;\n" + closed


def found(files):
    root = tree(files)
    return namespaces_check.violations(root, namespaces_check.tracked_sources(root))


class NamespacesCheckTest(unittest.TestCase):
    def test_the_whole_path_or_a_prefix_of_it_matches(self):
        for namespace in ("kbench::server", "kbench::server::worker",
                          "kbench::server::worker::compile"):
            self.assertEqual(found({"server/worker/compile/a.h": source(namespace)}), [],
                             namespace)

    def test_a_namespace_outside_its_folder_is_named_with_the_line(self):
        problems = found({"server/worker/compile/a.h": source("kbench::compile")})
        self.assertEqual(len(problems), 1)
        self.assertIn("server/worker/compile/a.h:1:", problems[0])
        self.assertIn("does not begin with kbench::server", problems[0])

    def test_a_sibling_folder_is_refused(self):
        files = {"server/identity/a.h": source("kbench::server::auth"),
                 "server/auth/b.h": source("kbench::server::auth")}
        problems = found(files)
        self.assertEqual(len(problems), 1)
        self.assertIn("server/identity/a.h", problems[0])
        self.assertIn("names a folder (auth)", problems[0])

    def test_a_part_may_have_a_namespace_that_names_no_folder(self):
        files = {"kernels/cuda/attention/a.cuh": source("kbench::kernels::cuda::ptx"),
                 "kernels/cuda/attention/b.cuh": source("kbench::kernels::cuda",
                                                        "detail")}
        self.assertEqual(found(files), [])

    def test_a_part_named_for_a_folder_in_a_word_is_refused(self):
        files = {"server/worker/backends/cuda/a.h": source("kbench::server::cuda_backend")}
        problems = found(files)
        self.assertEqual(len(problems), 1)
        self.assertIn("names a folder (cuda_backend)", problems[0])

    def test_a_namespace_outside_kbench_is_refused(self):
        problems = found({"client/a.h": source("client")})
        self.assertEqual(len(problems), 1)
        self.assertIn("not inside kbench", problems[0])

    def test_tests_and_docs_are_not_checked(self):
        files = {"tests/a_test.cc": source("kbench::testing"),
                 "docs/examples/a.cc": source("anything")}
        self.assertEqual(found(files), [])

    def test_a_namespace_without_its_closing_comment_is_reported(self):
        problems = found({"client/a.h": "namespace kbench::client {\nint x;\n}\n"})
        self.assertEqual(len(problems), 1)
        self.assertIn("no closing comment", problems[0])

    def test_braces_in_a_raw_string_do_not_confuse_it(self):
        text = 'namespace kbench::client {\nconst char* k = R"(\n{ } }\n)";\n' \
               '}  // namespace kbench::client\n'
        self.assertEqual(found({"client/a.cc": text}), [])


if __name__ == "__main__":
    unittest.main()
