#!/usr/bin/env bash
# Builds kbench's container images with podman from this checkout:
#   scripts/container_images.sh [server-cpu] [client] [server-cuda]
# (default: server-cpu client), tagged localhost/kbench-NAME:latest, from
# docker/NAME.Dockerfile with the repository root as the context.
#
# The Debian images build on $KBENCH_DEBIAN_IMAGE. Unset, it is
# localhost/kbench-debian:bookworm, made here once with debootstrap
# (--variant=minbase) and `podman import`, for machines that reach a Debian
# mirror but no image registry. The mirror is $KBENCH_DEBIAN_MIRROR, else
# the one this machine's apt takes bookworm from (/etc/apt/sources.list.d/
# *.sources or sources.list). With a registry,
# KBENCH_DEBIAN_IMAGE=docker.io/library/debian:bookworm-slim.
# --isolation=chroot: builds where podman cannot run OCI containers.
# Needs root (or rootless podman with subuids) and, for the base, debootstrap.
set -euo pipefail
cd "$(dirname "$0")/.."
images=("$@")
[ ${#images[@]} -gt 0 ] || images=(server-cpu client)
for name in "${images[@]}"; do
  [ -f "docker/$name.Dockerfile" ] || { echo "container_images: no docker/$name.Dockerfile" >&2; exit 2; }
done
command -v podman >/dev/null || { echo "container_images: needs podman (apt-get install podman)" >&2; exit 2; }

. scripts/debian_mirror.sh

base=${KBENCH_DEBIAN_IMAGE:-}
if [ -z "$base" ]; then
  base=localhost/kbench-debian:bookworm
  if ! podman image exists "$base"; then
    command -v debootstrap >/dev/null ||
      { echo "container_images: needs debootstrap to make $base (apt-get install debootstrap)" >&2; exit 2; }
    mirror=$(debian_mirror)
    [ -n "$mirror" ] ||
      { echo "container_images: no bookworm source in this machine's apt sources; set KBENCH_DEBIAN_MIRROR" >&2; exit 2; }
    rootfs=$(mktemp -d /var/tmp/kbench-debian.XXXXXX)
    trap 'rm -rf "$rootfs"' EXIT
    echo "container_images: making $base with debootstrap from $mirror"
    debootstrap --variant=minbase bookworm "$rootfs" "$mirror" >/dev/null
    tar -C "$rootfs" -c . | podman import - "$base" >/dev/null
  fi
fi

for name in "${images[@]}"; do
  echo "container_images: building localhost/kbench-$name:latest"
  args=(--isolation=chroot -f "docker/$name.Dockerfile" -t "localhost/kbench-$name:latest")
  [ "$name" = server-cuda ] || args+=(--build-arg "DEBIAN_IMAGE=$base")
  podman build "${args[@]}" .
done
