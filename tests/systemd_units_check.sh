#!/usr/bin/env bash
# deploy/systemd's units, checked by systemd itself (systemd-analyze verify:
# unknown directives, bad values, missing units they name), with the
# kbench-server they start pointed at the one just built; and the server's
# command line as systemd expands it with the unit's own Environment= (no
# env file): every option one kbench-server --help lists, none given an
# empty value (systemd passes `--store=${EMPTY}` as `--store=`, which the
# server refuses, so the unit would never start). Skips (exit 77) where
# systemd-analyze is not installed.
#   systemd_units_check.sh KBENCH_SERVER_BINARY   (ctest: systemd_units)
set -euo pipefail
binary=$1
root=$(cd "$(dirname "$0")/.." && pwd)
command -v systemd-analyze >/dev/null || { echo "SKIP: no systemd-analyze"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for unit in "$root"/deploy/systemd/*; do
  sed "s|/usr/local/bin/kbench-server|$binary|g" "$unit" >"$work/$(basename "$unit")"
done
# An empty unit for what the server orders itself after, which a GPU box has.
printf '[Unit]\nDescription=stand-in\n[Service]\nExecStart=/bin/true\n' \
  >"$work/nvidia-persistenced.service"
cd "$work"
out=$(systemd-analyze verify --man=no ./*.service ./*.timer ./*.path 2>&1 || true)
# Lines about the host's own units are not ours.
ours=$(grep -E "^($work/|kbench)" <<<"$out" | grep -v "nvidia-persistenced" || true)
if [ -n "$ours" ]; then
  echo "$ours"
  echo "systemd_units: systemd-analyze verify found problems in deploy/systemd"
  exit 1
fi
python3 - "$root/deploy/systemd/kbench-server.service" "$binary" <<'PY' || exit 1
import re, shlex, subprocess, sys
unit, binary = sys.argv[1], sys.argv[2]
text = re.sub(r"\\\n", " ", open(unit).read())
env, exec_start = {}, None
for line in text.splitlines():
    key, _, value = line.partition("=")
    if key == "Environment":
        name, _, default = value.partition("=")
        env[name] = default.replace("%S", "/var/lib").replace("%d", "/run/credentials/x")
    elif key == "ExecStart":
        exec_start = value
args = shlex.split(exec_start)[1:]
args = [re.sub(r"\$\{(\w+)\}", lambda m: env.get(m.group(1), ""), a) for a in args]
known = set(re.findall(r"(--[a-z][a-z0-9-]*)", subprocess.run(
    [binary, "--help"], capture_output=True, text=True).stdout))
errors = []
for arg in args:
    if not arg.startswith("--"):
        continue
    name, eq, value = arg.partition("=")
    if name not in known:
        errors.append(f"ExecStart passes {name}, which kbench-server --help does not list")
    if eq and value == "":
        errors.append(f"ExecStart passes {name}= with an empty value when the unit's "
                      f"Environment= is all that is set (the server refuses it)")
for error in errors:
    print(f"kbench-server.service: {error}")
sys.exit(1 if errors else 0)
PY
echo "systemd_units: $(ls "$root"/deploy/systemd | wc -l) units verified, kbench-server's command line checked"
