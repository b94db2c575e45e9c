#!/usr/bin/env bash
# Checks the CPU server image and the client image the way they would run,
# without `podman run` (which needs a runtime that can set rlimits): builds
# them (scripts/container_images.sh; --no-build checks the images already
# there), mounts each with `podman image mount`, and chroots into them as
# their user kbench:
#   1. every library of kbench-server, kbench-worker and kbench resolves
#      inside its image (ldd there);
#   2. kbench-server starts from the server image (the CPU backend, its
#      store in a tmpfs), serves gRPC and the dashboard (/metrics);
#   3. the client image's kbench, against it: info, a vector add and an
#      attention run (naive against the other variant), each verified
#      (exit 0), and a bad request refused with exit 2 naming the field;
#   4. SIGTERM drains the server and it exits 0.
# Not part of CI (CI has no podman). Needs root, podman, and debootstrap to
# make the Debian base image where no registry is reachable.
set -euo pipefail
cd "$(dirname "$0")/.."
build=1
[ "${1:-}" = --no-build ] && build=0
[ "$(id -u)" -eq 0 ] || { echo "container_check: needs root (chroot, mounts)" >&2; exit 2; }
server_image=localhost/kbench-server-cpu:latest
client_image=localhost/kbench-client:latest
[ $build -eq 0 ] || scripts/container_images.sh server-cpu client

work=$(mktemp -d /tmp/kbench-container-check.XXXXXX)
mounts=() images=() server_pid=""
cleanup() {
  [ -z "$server_pid" ] || kill "$server_pid" 2>/dev/null || true
  for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do umount "${mounts[$i]}" 2>/dev/null || true; done
  for image in "${images[@]}"; do podman image unmount "$image" >/dev/null 2>&1 || true; done
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "container_check: FAIL: $*" >&2; exit 1; }
step() { echo "container_check: $*"; }

# Mounts IMAGE read-only and gives it /proc, /dev and tmpfs on the paths
# named (the image's own writable places); sets image_root to its root. Not
# in a subshell: cleanup must see what it mounted.
mount_image() {
  local image=$1 dir; shift
  image_root=$(podman image mount "$image") || fail "podman image mount $image"
  images+=("$image")
  mount -t proc proc "$image_root/proc" && mounts+=("$image_root/proc")
  mount --bind /dev "$image_root/dev" && mounts+=("$image_root/dev")
  for dir in /tmp "$@"; do
    mount -t tmpfs -o mode=1777 tmpfs "$image_root$dir" && mounts+=("$image_root$dir")
  done
}
# The uid:gid of user kbench in the image at ROOT.
kbench_user() { awk -F: '$1 == "kbench" {print $3 ":" $4}' "$1/etc/passwd"; }

mount_image "$server_image" /var/lib/kbench
server_root=$image_root
mount_image "$client_image"
client_root=$image_root
server_user=$(kbench_user "$server_root")
client_user=$(kbench_user "$client_root")
[ -n "$server_user" ] && [ -n "$client_user" ] || fail "no user kbench in the images"

step "1. libraries resolve inside the images"
for binary in /usr/local/bin/kbench-server /usr/local/bin/kbench-worker; do
  out=$(chroot "$server_root" ldd "$binary") || fail "ldd $binary in $server_image"
  ! grep -q 'not found' <<<"$out" || fail "$binary in $server_image: $(grep 'not found' <<<"$out")"
done
out=$(chroot "$client_root" ldd /opt/kbench/bin/kbench) || fail "ldd kbench in $client_image"
! grep -q 'not found' <<<"$out" || fail "kbench in $client_image: $(grep 'not found' <<<"$out")"
outside=$(sed 's#/bin/\.\./lib/#/lib/#' <<<"$out" |
          awk '/=> \// && $3 !~ /^\/opt\/kbench\/lib\// {print $1}' |
          grep -Ev '^(libc|libm|libdl|librt|libpthread|libresolv)\.so' || true)
[ -z "$outside" ] || fail "the client bundle loads libraries from outside /opt/kbench/lib: $outside"

step "2. kbench-server from $server_image (CPU backend)"
http_port=$((20000 + RANDOM % 20000))
chroot --userspec="$server_user" "$server_root" /usr/bin/env -i \
  PATH=/usr/local/bin:/usr/bin:/bin HOME=/var/lib/kbench KBENCH_STATE_DIR=/var/lib/kbench \
  /usr/local/bin/kbench-server \
  --listen 127.0.0.1:0 --http "127.0.0.1:$http_port" --backend cpu --devices all \
  >"$work/server.out" 2>"$work/server.err" &
server_pid=$!
port=""
for _ in $(seq 1 1200); do
  port=$(sed -n 's/^kbench-server listening on .*:\([0-9]*\)$/\1/p' "$work/server.out")
  [ -n "$port" ] && break
  kill -0 "$server_pid" 2>/dev/null || { cat "$work/server.err" >&2; fail "kbench-server exited"; }
  sleep 0.1
done
[ -n "$port" ] || { cat "$work/server.err" >&2; fail "kbench-server did not start in 120 s"; }
step "   listening on 127.0.0.1:$port, dashboard on 127.0.0.1:$http_port"
exec 3<>"/dev/tcp/127.0.0.1/$http_port" || fail "the dashboard port does not answer"
printf 'GET /metrics HTTP/1.0\r\nHost: localhost\r\n\r\n' >&3
metrics=$(cat <&3); exec 3<&-
grep -q '^HTTP/1.[01] 200' <<<"$metrics" || fail "GET /metrics: $(head -1 <<<"$metrics")"

step "3. the client from $client_image against it"
kbench() {
  chroot --userspec="$client_user" "$client_root" /usr/bin/env -i PATH=/usr/bin:/bin \
    HOME=/home/kbench /opt/kbench/bin/kbench --server "127.0.0.1:$port" --quiet "$@"
}
kbench info >"$work/info.txt" || fail "kbench info: exit $?"
grep -qi 'cpu' "$work/info.txt" || fail "kbench info does not name the cpu backend: $(cat "$work/info.txt")"
kbench --json vector-add --n 100003 --variant naive,vectorized --budget-ms 200 >"$work/va.json" ||
  fail "kbench vector-add: exit $?"
grep -q '"vectorized"' "$work/va.json" || fail "vector-add JSON has no vectorized result"
kbench --csv attention --seq 96 --head-dim 32 --variant naive,fused --budget-ms 300 >"$work/att.csv" ||
  fail "kbench attention: exit $?"
[ "$(wc -l <"$work/att.csv")" -eq 3 ] || fail "attention CSV is not a header and two rows: $(cat "$work/att.csv")"
set +e
kbench vector-add --n 2^40 2>"$work/bad.err" >/dev/null
rc=$?
set -e
[ $rc -eq 2 ] || fail "an n over the limit exited $rc, not 2"
grep -q 'n must be between 1 and' "$work/bad.err" || fail "the refusal does not say why: $(cat "$work/bad.err")"
step "   info, vector add, attention verified; n=2^40 refused: $(head -1 "$work/bad.err")"

step "4. SIGTERM drains the server"
kill -TERM "$server_pid"
set +e
wait "$server_pid"
rc=$?
set -e
server_pid=""
[ $rc -eq 0 ] || { cat "$work/server.err" >&2; fail "kbench-server exited $rc after SIGTERM"; }
step "PASS: $server_image and $client_image"
