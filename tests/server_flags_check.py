#!/usr/bin/env python3
"""Every script that starts kbench-server on a store says how it
authenticates.

A server given --store without --auth runs with --auth auto, which refuses
to create a store (a mistyped path would serve an empty, open store), so a
script that starts a throwaway server on a new store without --auth off (or
--bootstrap-admin, or --auth on with its users) cannot start it: the
attention grid through the server was lost that way on the GPU machine.
This check reads the shell scripts and Python tools of scripts/ and
tools/: each kbench-server command (shell: one logical line, continuations
joined; Python: one list literal of its arguments) that passes --store
must pass --auth or --bootstrap-admin; `kbench-server admin ...` commands
are not servers. It checks itself first on a bad and a good example.

Usage: server_flags_check.py REPO_ROOT. Prints FILE:LINE for each command
that fails and exits 1; exits 0 when none does.
"""
import ast
import pathlib
import re
import sys

AUTH_FLAGS = ("--auth", "--bootstrap-admin")


def _is_server_command(words):
    text = " ".join(words)
    return "--store" in text and not re.search(r"\badmin\b", text)


def _says_auth(words):
    return any(w.startswith(flag) for w in words for flag in AUTH_FLAGS)


def shell_violations(text):
    """Line numbers of kbench-server commands in a shell text that pass
    --store without an auth flag."""
    found = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        start, logical = i, lines[i]
        while logical.rstrip().endswith("\\") and i + 1 < len(lines):
            i += 1
            logical = logical.rstrip()[:-1] + " " + lines[i]
        i += 1
        code = logical.split("#", 1)[0] if logical.lstrip().startswith("#") else logical
        if "kbench-server" not in code:
            continue
        words = code.split()
        if _is_server_command(words) and not _says_auth(words):
            found.append(start + 1)
    return found


def python_violations(text):
    """Line numbers of argument lists in a Python text that name
    kbench-server's --store without an auth flag."""
    found = []
    for node in ast.walk(ast.parse(text)):
        if not isinstance(node, ast.List):
            continue
        words = [e.value for e in node.elts
                 if isinstance(e, ast.Constant) and isinstance(e.value, str)]
        if "--store" in words and _is_server_command(words) and not _says_auth(words):
            found.append(node.lineno)
    return found


def self_check():
    bad = ('"$bundle/kbench-server" --backend cuda --listen 127.0.0.1:0 --http off \\\n'
           '    --store "$raw/store.sqlite" \\\n    >"$raw/server.out" &\n')
    good = bad.replace('store.sqlite" \\', 'store.sqlite" --auth off \\')
    admin = 'kbench-server admin add-user ada --role admin --store "$s"\n'
    assert shell_violations(bad) == [1], shell_violations(bad)
    assert shell_violations(good) == [], shell_violations(good)
    assert shell_violations(admin) == [], shell_violations(admin)
    py_bad = 'args = [server, "--backend", "cuda", "--store", path]\n'
    py_good = 'args = [server, "--auth", "off", "--store", path]\n'
    assert python_violations(py_bad) == [1], python_violations(py_bad)
    assert python_violations(py_good) == [], python_violations(py_good)


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    self_check()
    root = pathlib.Path(sys.argv[1])
    failures, checked = [], 0
    for folder in ("scripts", "tools"):
        for path in sorted((root / folder).rglob("*")):
            if path.suffix not in (".sh", ".py") or not path.is_file():
                continue
            text = path.read_text()
            if "kbench-server" not in text and "--store" not in text:
                continue
            checked += 1
            lines = (shell_violations if path.suffix == ".sh" else python_violations)(text)
            failures += [f"{path.relative_to(root)}:{line}" for line in lines]
    for failure in failures:
        print(f"{failure}: kbench-server is given --store without --auth or "
              "--bootstrap-admin (--auth auto will not create a store)")
    print(f"server_flags_check: {checked} files read, {len(failures)} commands without an auth flag")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
