#!/usr/bin/env bash
# Takes the self-contained kbench client out of the client image and checks
# it: dist/kbench-client-linux-x86_64.tar.gz holds kbench/bin/kbench and,
# in kbench/lib, every library it loads but glibc's, found through its rpath
# ($ORIGIN/../lib; docker/bundle-client.sh made it in the image). It runs
# on x86-64 Linux with glibc 2.36 or newer (Debian 12, Ubuntu 23.04+,
# Fedora 37+), unpacked anywhere.
#   scripts/client_bundle.sh            builds the client image if it is missing
#   scripts/client_bundle.sh --build    rebuilds it first
# Checks, unpacked in a fresh directory: ldd finds every library, and every
# one but glibc's in the bundle; `kbench --help` and `kbench info --help` run;
# and `kbench --help` runs on the bare Debian 12 base image (no gRPC,
# Protobuf or Abseil there; $KBENCH_DEBIAN_IMAGE, as container_images.sh).
# Needs root (podman image mount, chroot) and podman.
set -euo pipefail
cd "$(dirname "$0")/.."
image=localhost/kbench-client:latest
if [ "${1:-}" = --build ] || ! podman image exists "$image"; then
  scripts/container_images.sh client
fi
out=dist/kbench-client-linux-x86_64.tar.gz
work=$(mktemp -d /tmp/kbench-client-bundle.XXXXXX)
base=${KBENCH_DEBIAN_IMAGE:-localhost/kbench-debian:bookworm}
mounted=() mounts=()
cleanup() {
  for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do umount "${mounts[$i]}" 2>/dev/null || true; done
  for m in "${mounted[@]}"; do podman image unmount "$m" >/dev/null 2>&1 || true; done
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "client_bundle: FAIL: $*" >&2; exit 1; }

root=$(podman image mount "$image")
mounted+=("$image")
mkdir -p dist "$work/stage/kbench"
cp -a "$root/opt/kbench/." "$work/stage/kbench/"
tar -C "$work/stage" --owner=0 --group=0 -czf "$out" kbench

mkdir "$work/unpacked"
tar -C "$work/unpacked" -xzf "$out"
bundle=$work/unpacked/kbench
libs=$(ldd "$bundle/bin/kbench")
! grep -q 'not found' <<<"$libs" || fail "unresolved: $(grep 'not found' <<<"$libs")"
outside=$(sed 's#/bin/\.\./lib/#/lib/#' <<<"$libs" | awk '/=> \// {print $1, $3}' |
          grep -v " $bundle/lib/" |
          grep -Ev '^(libc|libm|libdl|librt|libpthread|libresolv)\.so' || true)
[ -z "$outside" ] || fail "loads libraries from outside the bundle: $outside"
"$bundle/bin/kbench" --help >/dev/null || fail "kbench --help exited $?"
"$bundle/bin/kbench" info --help >/dev/null || fail "kbench info --help exited $?"

bare=$(podman image mount "$base") || fail "podman image mount $base"
mounted+=("$base")
mount -t proc proc "$bare/proc" && mounts+=("$bare/proc")
mount -t tmpfs tmpfs "$bare/tmp" && mounts+=("$bare/tmp")
tar -C "$bare/tmp" -xzf "$out"
! ls "$bare"/usr/lib/x86_64-linux-gnu/libgrpc* >/dev/null 2>&1 || fail "$base has gRPC: no test"
chroot "$bare" /tmp/kbench/bin/kbench --help >/dev/null || fail "kbench --help on $base exited $?"
echo "client_bundle: $out ($(du -h "$out" | cut -f1), $(ls "$bundle/lib" | wc -l) libraries" \
     "besides glibc): OK"
