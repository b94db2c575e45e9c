#!/usr/bin/env python3
"""Checks that namespaces match folders (docs/ARCHITECTURE.md, "How the code
reads"): every namespace a file of proto/, kernels/, server/, client/ or
tools/ opens is kbench:: followed by a prefix of the file's folder path
(server/worker/compile/kernel_compiler.h may be in kbench::server,
kbench::server::worker or kbench::server::worker::compile), then, where a
file keeps a part of itself apart, namespaces that name no folder of the
tree, not even in a word of their name (kbench::kernels::cuda::ptx, not
::cuda_backend). So a qualified name says which folder it
comes from, as far as it goes: store::RunStore is in server/store/,
proto::ops::Op in proto/ops/. Tests (tests/) open the namespace of what they
test, or kbench::testing for their helpers, and are not checked.

Usage: namespaces_check.py ROOT          check ROOT's tracked sources
Exits 1 listing each namespace that does not match, as FILE:LINE: why.

Namespaces are read from their opening lines (`namespace a::b {`) and the
closing comments clang-format keeps (`}  // namespace a::b`), not by
counting braces, so the braces of a raw string (the dashboard's page) do
not confuse it.
"""
import os
import re
import subprocess
import sys

CHECKED = ("proto/", "kernels/", "server/", "client/", "tools/")
SOURCE = (".h", ".cc", ".cu", ".cuh")
OPEN = re.compile(r"^\s*namespace\s+([A-Za-z_][\w:]*)?\s*\{")
CLOSE = re.compile(r"^\s*\}\s*//\s*namespace\b")


def tracked_sources(root):
    listing = subprocess.run(["git", "-C", root, "ls-files"], check=True,
                             capture_output=True, text=True).stdout.split()
    return [path for path in listing
            if path.startswith(CHECKED) and path.endswith(SOURCE)]


def folder_names(paths):
    """Every folder name of the tree's checked sources."""
    return {part for path in paths for part in path.split("/")[:-1]}


def check_namespace(path, namespace, folders):
    """Why NAMESPACE (a list of names) does not suit PATH, or None."""
    if namespace[0] != "kbench":
        return f"namespace {'::'.join(namespace)} is not inside kbench"
    folder = path.split("/")[:-1]
    names = namespace[1:]
    matched = 0
    while matched < min(len(names), len(folder)) and names[matched] == folder[matched]:
        matched += 1
    if matched == 0:
        return (f"namespace {'::'.join(namespace)} does not begin with "
                f"kbench::{folder[0]} (the file is in {'/'.join(folder)}/)")
    for name in names[matched:]:
        words = {word.rstrip("s") for word in name.split("_")}
        if name in folders or words & {folder.rstrip("s") for folder in folders}:
            expected = "::".join(["kbench"] + folder)
            return (f"namespace {'::'.join(namespace)} names a folder ({name}), "
                    f"which is not on the file's path {'/'.join(folder)}/ "
                    f"(kbench:: and a prefix of {expected})")
    return None


def violations(root, paths):
    folders = folder_names(paths)
    found = []
    for path in paths:
        stack = []
        with open(os.path.join(root, path), encoding="utf-8") as source:
            for number, line in enumerate(source, 1):
                opened = OPEN.match(line)
                if opened:
                    stack.append(opened.group(1) or "")
                    names = [part for name in stack if name for part in name.split("::")]
                    if opened.group(1):
                        why = check_namespace(path, names, folders)
                        if why:
                            found.append(f"{path}:{number}: {why}")
                elif CLOSE.match(line):
                    if not stack:
                        found.append(f"{path}:{number}: a namespace closes that did not open")
                    else:
                        stack.pop()
        if stack:
            found.append(f"{path}: namespace {stack[-1] or '(anonymous)'} has no closing "
                         "comment (`}  // namespace ...`, as clang-format writes it)")
    return found


def main(argv):
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    root = argv[1]
    paths = tracked_sources(root)
    found = violations(root, paths)
    for line in found:
        print(line)
    if found:
        print(f"{len(found)} namespaces do not match their folders", file=sys.stderr)
        return 1
    print(f"namespaces match folders in {len(paths)} files")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
