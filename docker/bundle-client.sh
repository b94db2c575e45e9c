#!/usr/bin/env bash
# Makes the self-contained kbench client bundle: DEST/bin/kbench and, in
# DEST/lib, every shared library it loads except glibc's (the packages
# libc6 owns), with an rpath of $ORIGIN/../lib on the binary and $ORIGIN on
# each library, so the bundle runs on any x86-64 Linux with glibc 2.36 or
# newer (Debian 12, Ubuntu 23.04+, Fedora 37+) from wherever it is unpacked.
# Debian ships gRPC, Protobuf and Abseil as shared libraries only, so a
# static binary is not an option with its packages; bundling is.
# Needs patchelf. Usage: docker/bundle-client.sh KBENCH_BINARY DEST
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: $0 KBENCH_BINARY DEST" >&2; exit 2; }
binary=$1 dest=$2
mkdir -p "$dest/bin" "$dest/lib"
install -m 755 "$binary" "$dest/bin/kbench"
ldd "$binary" | awk '/=> \// {print $3}' | sort -u | while read -r lib; do
  owner=$(dpkg-query -S "$lib" 2>/dev/null || dpkg-query -S "$(readlink -f "$lib")")
  [ "${owner%%:*}" = libc6 ] && continue
  cp -L "$lib" "$dest/lib/"
  patchelf --set-rpath '$ORIGIN' "$dest/lib/$(basename "$lib")"
done
# DT_RPATH rather than DT_RUNPATH: it also applies to the libraries' own
# dependencies.
patchelf --force-rpath --set-rpath '$ORIGIN/../lib' "$dest/bin/kbench"
