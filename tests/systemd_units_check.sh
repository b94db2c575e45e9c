#!/usr/bin/env bash
# deploy/systemd's units, checked by systemd itself (systemd-analyze verify:
# unknown directives, bad values, missing units they name), with the
# kbench-server they start pointed at the one just built. Skips (exit 77)
# where systemd-analyze is not installed.
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
echo "systemd_units: $(ls "$root"/deploy/systemd | wc -l) units verified"
