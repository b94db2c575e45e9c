#!/usr/bin/env bash
# Prints, one a line, the packages that own the shared libraries the given
# binaries load (as ldd resolves them in the build stage of an image). The
# runtime stage installs exactly these, so its package list is derived from
# what was linked, never kept by hand. The CUDA driver (libcuda.so.1,
# absent at build time, injected at run time by the NVIDIA container toolkit)
# and libraries no package owns are skipped. Fails when any other library
# cannot be resolved.
set -euo pipefail
[ $# -gt 0 ] || { echo "usage: $0 BINARY..." >&2; exit 2; }
libs=$(ldd "$@" | awk '/^\s*libcuda\.so/ && /not found/ {next} /=> not found/ {print "MISSING " $1; next} /=> \// {print $3}' | sort -u)
if grep -q '^MISSING' <<<"$libs"; then
  echo "runtime-packages: unresolved libraries:" >&2
  grep '^MISSING' <<<"$libs" >&2
  exit 1
fi
for lib in $libs; do
  real=$(readlink -f "$lib")
  dpkg-query -S "$lib" 2>/dev/null || dpkg-query -S "$real" 2>/dev/null || true
done | cut -d: -f1 | sort -u
