#!/usr/bin/env python3
"""Checks the files a new op touches: docs/ARCHITECTURE.md's "Adding an op"
lists them (at most 5), and no op is named in code outside its own folders
(proto/ops/<op>/, kernels/<op>/, kernels/cuda/<op>/,
server/worker/backends/<op>/) and that list. Every listed file names every
op, so the list says what a new op really touches.

Usage: op_files_check.py ROOT

The ops are KBENCH_OPS of ROOT/CMakeLists.txt. An op is named, in the code of
proto/, kernels/, server/, client/ and the CMake files (comments left out;
tests, tools and docs are not scanned), by:
  - a path into one of its folders, e.g. an include of "kernels/attention/...";
  - its description or a workload of it: AttentionOp, CpuAttentionWorkload;
  - its name as a whole string literal ("attention": a table keyed by names);
  - a type or function named for it (AttentionShape, AttentionTolerances)
    or its problem in the API (AttentionProblem, RunRequest::kAttention,
    request.attention(), mutable_attention()); a file that serves or
    converts v1's op-specific requests (it names AttentionRequest, the
    message of the RunAttention RPC that predates the registry and that no
    new op gets) may name these;
  - in CMake, its name as a word (KBENCH_OPS).
"""
import os
import re
import sys

MAX_FILES = 5
SCANNED = ("proto", "kernels", "server", "client", "cmake")
SOURCE = (".h", ".cc", ".cu", ".cuh", ".proto")
CMAKE = ("CMakeLists.txt",)


def camel(op):
    return "".join(part.capitalize() for part in op.split("_"))


def ops_of(root):
    text = open(os.path.join(root, "CMakeLists.txt")).read()
    match = re.search(r"set\(KBENCH_OPS\s+([^)]*)\)", text)
    if not match:
        sys.exit("CMakeLists.txt: no set(KBENCH_OPS ...)")
    return match.group(1).split()


def listed_files(root):
    text = open(os.path.join(root, "docs", "ARCHITECTURE.md")).read()
    match = re.search(r"^## Adding an op\n(.*?)(?=^## |\Z)", text, re.S | re.M)
    if not match:
        sys.exit("docs/ARCHITECTURE.md: no section '## Adding an op'")
    return re.findall(r"^\d+\. `([^`]+)`", match.group(1), re.M)


def op_folders(op):
    return (f"proto/ops/{op}/", f"kernels/{op}/", f"kernels/cuda/{op}/",
            f"server/worker/backends/{op}/")


def code_of(path, text):
    if path.endswith(CMAKE) or path.endswith(".cmake"):
        return re.sub(r"#[^\n]*", "", text)
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return re.sub(r"(?<![:\"])//[^\n]*", "", text)


def mentions(path, code, op):
    """The first way `code` (of file `path`) names `op`, or None."""
    c = camel(op)
    if path.endswith(CMAKE) or path.endswith(".cmake"):
        match = re.search(rf"(?<![\w/]){op}(?![\w])", code)
        return match and f"the word {op}"
    if path.endswith(".proto"):
        match = re.search(rf"\b{c}Problem\b", code)
        return match and match.group(0)
    patterns = [
        rf"\b(?:ops|kernels|cuda|backends)/{op}/",
        rf"\b{c}Op\b",
        rf"\b\w*{c}Workload\b",
        rf"\"{op}\"",
    ]
    if not re.search(rf"\b{c}Request\b", code):
        patterns += [rf"\b{c}[A-Z]\w*", rf"\bk{c}\b", rf"[.>]{op}\(\)",
                     rf"\bmutable_{op}\("]
    for pattern in patterns:
        match = re.search(pattern, code)
        if match:
            return match.group(0)
    return None


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".")
    ops = ops_of(root)
    listed = listed_files(root)
    errors = []
    if not listed:
        errors.append("docs/ARCHITECTURE.md lists no files under 'Adding an op'")
    if len(listed) > MAX_FILES:
        errors.append(f"a new op touches {len(listed)} existing files; at most {MAX_FILES}")
    named = {path: set() for path in listed}
    files = ["CMakeLists.txt"]
    for top in SCANNED:
        for folder, dirs, names in os.walk(os.path.join(root, top)):
            dirs[:] = [d for d in dirs if not d.startswith(".")]
            for name in names:
                if name.endswith(SOURCE) or name in CMAKE or name.endswith(".cmake"):
                    files.append(os.path.relpath(os.path.join(folder, name), root))
    for path in sorted(files):
        code = code_of(path, open(os.path.join(root, path), errors="replace").read())
        for op in ops:
            if path.startswith(op_folders(op)):
                continue
            how = mentions(path, code, op)
            if not how:
                continue
            if path in named:
                named[path].add(op)
            else:
                errors.append(f"{path} names {op} ({how}) but is not in docs/ARCHITECTURE.md's "
                              "list of the files a new op touches: move it into the op's "
                              "folders or loop over the registry")
    for path, found in named.items():
        if not os.path.exists(os.path.join(root, path)):
            errors.append(f"docs/ARCHITECTURE.md lists {path}, which does not exist")
        for op in ops:
            if op not in found:
                errors.append(f"docs/ARCHITECTURE.md lists {path}, which does not name {op}")
    for error in errors:
        print(error)
    if errors:
        return 1
    print(f"{len(ops)} ops, each named only in its folders and these {len(listed)} files: "
          + ", ".join(listed))
    return 0


if __name__ == "__main__":
    sys.exit(main())
