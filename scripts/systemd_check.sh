#!/usr/bin/env bash
# Starts the real deploy/systemd/kbench-server.service under a real systemd
# (PID 1 of a systemd-nspawn container booting Debian 12) with every
# hardening line of the unit, the CPU backend in place of the GPUs:
#   1. the container boots (systemctl is-system-running: running/degraded);
#   2. `systemctl start kbench-server` starts it (is-active; its journal
#      says it serves);
#   3. kbench against it, with TLS and the bootstrap admin's token:
#      whoami says admin, a small vector add verifies (exit 0);
#   4. systemd-analyze security kbench-server: its exposure score; and the
#      unit's DevicePolicy=/DeviceAllow= lines enforced (a transient unit
#      with them cannot open /dev/net/tun; one without them can);
#   5. `systemctl stop kbench-server` while a run is in flight: the journal
#      shows SIGTERM, the drain, the run ending OK during the grace, and
#      "stopped"; the unit ends inactive with Result=success, status 0, and
#      the in-flight run's client exits 0.
# The container: a debootstrap rootfs (minbase, systemd, systemd-sysv, dbus
# and the packages owning the libraries the binaries load, from
# docker/runtime-packages.sh) cached in $KBENCH_SYSTEMD_ROOTFS
# (/var/tmp/kbench-systemd-rootfs) and kept pristine: each check boots an
# overlay of it holding build/'s binaries in /usr/local/bin, user kbench,
# deploy/systemd's units, /etc/kbench/tls/server.{crt,key} (self-signed for
# localhost and 127.0.0.1, made here), /etc/kbench/admin-token, and one
# drop-in replacing ExecStart only (--backend cpu for cuda, no --devices
# all). Libraries no package owns (CUDA's under /usr/local) are bound in
# read-only. Private network: the client runs from this checkout in the
# container's network namespace (nsenter), the rest through nsenter into
# all its namespaces (no machined here, so no machinectl/systemd-run -M;
# --keep-unit: no host systemd bus to make a scope on).
# Cgroups: the container gets cgroup v2 alone (SYSTEMD_NSPAWN_UNIFIED_
# HIERARCHY=1) and the bpf() syscall (--system-call-filter=bpf), so that its
# systemd applies DevicePolicy= with a BPF device program. On a cgroup v1 or
# hybrid host nspawn's default (hybrid) mounts the v1 devices controller
# read-only in the container, and without bpf() in its seccomp allow list
# systemd cannot load device programs: DevicePolicy= then silently does
# nothing (step 4 would catch that).
# The mirror is $KBENCH_DEBIAN_MIRROR, else the one this machine's apt takes
# bookworm from (as scripts/container_images.sh).
# Run by hand (not in CI). Needs root, systemd-nspawn (systemd-container),
# debootstrap (first run), openssl, and build/ built (scripts/build.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$(id -u)" -eq 0 ] || { echo "systemd_check: needs root (nspawn, mounts)" >&2; exit 2; }
for tool in systemd-nspawn nsenter openssl; do
  command -v "$tool" >/dev/null || { echo "systemd_check: needs $tool" >&2; exit 2; }
done
binaries=(build/server/kbench-server build/server/kbench-worker build/client/kbench)
for binary in "${binaries[@]}"; do
  [ -x "$binary" ] || { echo "systemd_check: no $binary (scripts/build.sh)" >&2; exit 2; }
done
rootfs=${KBENCH_SYSTEMD_ROOTFS:-/var/tmp/kbench-systemd-rootfs}
machine=kbench-systemd-check

work=$(mktemp -d /tmp/kbench-systemd-check.XXXXXX)
root=$work/root
nspawn_pid="" leader="" mounted="" client_pid=""
cleanup() {
  [ -z "$client_pid" ] || kill "$client_pid" 2>/dev/null || true
  if [ -n "$nspawn_pid" ] && kill -0 "$nspawn_pid" 2>/dev/null; then
    # SIGRTMIN+4 to the container's systemd: poweroff; nspawn then exits.
    [ -z "$leader" ] || kill -s RTMIN+4 "$leader" 2>/dev/null || true
    for _ in $(seq 1 100); do kill -0 "$nspawn_pid" 2>/dev/null || break; sleep 0.2; done
    kill "$nspawn_pid" 2>/dev/null || true
    wait "$nspawn_pid" 2>/dev/null || true
  fi
  [ -z "$mounted" ] || umount "$root" 2>/dev/null || umount -l "$root" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
fail() {
  echo "systemd_check: FAIL: $*" >&2
  if [ -n "$leader" ] && kill -0 "$leader" 2>/dev/null; then
    echo "--- journalctl -u kbench-server (last 40 lines)" >&2
    inside journalctl -u kbench-server --no-pager -n 40 >&2 || true
  fi
  exit 1
}
step() { echo "systemd_check: $*"; }
pass() { echo "systemd_check: PASS: $*"; }
# Runs a command inside the container (all its namespaces, its root).
inside() {
  nsenter -t "$leader" -a -r -w /usr/bin/env -i PATH=/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    SYSTEMD_COLORS=0 SYSTEMD_PAGER= "$@"
}

. scripts/debian_mirror.sh

step "0. the container's rootfs ($rootfs)"
packages=$(docker/runtime-packages.sh "${binaries[@]}") || fail "docker/runtime-packages.sh"
if [ ! -x "$rootfs/lib/systemd/systemd" ]; then
  command -v debootstrap >/dev/null ||
    { echo "systemd_check: needs debootstrap to make $rootfs (apt-get install debootstrap)" >&2; exit 2; }
  mirror=$(debian_mirror)
  [ -n "$mirror" ] ||
    { echo "systemd_check: no bookworm source in this machine's apt sources; set KBENCH_DEBIAN_MIRROR" >&2; exit 2; }
  step "   debootstrap (minbase, systemd) from $mirror"
  rm -rf "$rootfs.tmp"
  debootstrap --variant=minbase --include="systemd,systemd-sysv,dbus,$(paste -sd, <<<"$packages")" \
    bookworm "$rootfs.tmp" "$mirror" >"$work/debootstrap.log" 2>&1 ||
    { tail -20 "$work/debootstrap.log" >&2; fail "debootstrap"; }
  mv "$rootfs.tmp" "$rootfs"
fi
# A cached rootfs made for other binaries: add what they load now.
missing=()
for package in $packages; do
  chroot "$rootfs" dpkg-query -W -f='${Status}\n' "$package" 2>/dev/null | grep -q 'install ok installed' ||
    missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
  step "   installing into it: ${missing[*]}"
  systemd-nspawn -q --register=no -D "$rootfs" /usr/bin/env DEBIAN_FRONTEND=noninteractive \
    sh -c 'apt-get update -qq && apt-get install -y -qq --no-install-recommends "$@"' sh "${missing[@]}" ||
    fail "apt-get install ${missing[*]} in $rootfs"
fi

# This check's root: an overlay on the cached rootfs (a copy where overlayfs
# cannot be mounted), so that the cache stays as debootstrap left it.
mkdir -p "$root" "$work/upper" "$work/overlay-work"
if mount -t overlay overlay -o "lowerdir=$rootfs,upperdir=$work/upper,workdir=$work/overlay-work" "$root" 2>/dev/null; then
  mounted=1
else
  cp -a "$rootfs/." "$root/"
fi

install -m 755 -t "$root/usr/local/bin" "${binaries[@]}"
chroot "$root" groupadd --system kbench
chroot "$root" useradd --system --gid kbench --home-dir /var/lib/kbench --no-create-home \
  --shell /usr/sbin/nologin kbench
install -m 644 -t "$root/etc/systemd/system" deploy/systemd/*.service deploy/systemd/*.timer deploy/systemd/*.path
# The unit's own ExecStart (with its continuation lines), for the CPU.
dropin=$root/etc/systemd/system/kbench-server.service.d/cpu-backend.conf
mkdir -p "$(dirname "$dropin")"
{
  printf '# systemd_check.sh: no GPU here; everything else as the unit says.\n[Service]\nExecStart=\n'
  awk '/^ExecStart=/ {on = 1} on {print} on && !/\\$/ {exit}' deploy/systemd/kbench-server.service |
    sed -e 's/--backend cuda/--backend cpu/' -e '/^[[:space:]]*--devices all[[:space:]]*\\$/d'
} >"$dropin"
grep -q -- '--backend cpu' "$dropin" && ! grep -q -- 'cuda\|--devices' "$dropin" ||
  fail "cannot derive the CPU ExecStart from the unit: $(cat "$dropin")"
# Credentials: root-only files, as docs/INSTALL.md makes them.
install -d -m 700 "$root/etc/kbench" "$root/etc/kbench/tls"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
  -subj /CN=localhost -addext "subjectAltName=DNS:localhost,IP:127.0.0.1" \
  -keyout "$root/etc/kbench/tls/server.key" -out "$root/etc/kbench/tls/server.crt" 2>"$work/openssl.err" ||
  { cat "$work/openssl.err" >&2; fail "openssl req"; }
chmod 600 "$root/etc/kbench/tls/server.key"
cp "$root/etc/kbench/tls/server.crt" "$work/ca.crt"
openssl rand -hex 32 >"$root/etc/kbench/admin-token"
chmod 600 "$root/etc/kbench/admin-token"
token=$(cat "$root/etc/kbench/admin-token")
# Libraries no Debian package owns (CUDA's runtime under /usr/local, found
# by the worker's RUNPATH): bound in read-only at the same path.
binds=()
for dir in $(ldd "${binaries[@]}" | awk '/=> \/usr\/local\// {print $3}' | xargs -r -n1 dirname | sort -u); do
  binds+=("--bind-ro=$dir")
done

step "1. boot the container (systemd-nspawn --boot, private network)"
SYSTEMD_NSPAWN_UNIFIED_HIERARCHY=1 systemd-nspawn --boot -D "$root" --machine="$machine" \
  --register=no --keep-unit --private-network --system-call-filter=bpf \
  --console=read-only "${binds[@]}" >"$work/boot.log" 2>&1 </dev/null &
nspawn_pid=$!
for _ in $(seq 1 300); do
  kill -0 "$nspawn_pid" 2>/dev/null || { cat "$work/boot.log" >&2; fail "systemd-nspawn exited"; }
  for pid in $(pgrep -P "$nspawn_pid" || true); do
    [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = systemd ] && leader=$pid
  done
  [ -n "$leader" ] && break
  sleep 0.1
done
[ -n "$leader" ] || { cat "$work/boot.log" >&2; fail "no systemd in the container after 30 s"; }
# Until its bus answers and the boot is over (starting: not yet).
state=""
for _ in $(seq 1 240); do
  kill -0 "$nspawn_pid" 2>/dev/null || { cat "$work/boot.log" >&2; fail "systemd-nspawn exited"; }
  state=$(inside systemctl is-system-running 2>&1 || true)
  case "$state" in running | degraded | maintenance | stopping) break ;; esac
  sleep 0.5
done
case "$state" in
  running | degraded) ;;
  *) cat "$work/boot.log" >&2; fail "the container's systemd is '$state'" ;;
esac
[ "$state" = running ] || step "   degraded: $(inside systemctl --failed --no-legend --plain | awk '{print $1}' | paste -sd' ')"
pass "1. systemd $(inside systemctl --version | awk 'NR == 1 {print $2}') is PID 1 of $machine (leader pid $leader): $state"

step "2. systemctl start kbench-server"
inside systemctl start kbench-server || fail "systemctl start kbench-server"
port_open=0
for _ in $(seq 1 300); do
  active=$(inside systemctl is-active kbench-server || true)
  [ "$active" = active ] || fail "kbench-server is $active"
  if inside journalctl -u kbench-server --no-pager -o cat | grep -q 'kbench-server .* serving on'; then port_open=1; break; fi
  sleep 0.2
done
[ $port_open -eq 1 ] || fail "the journal never says the server serves"
inside journalctl -u kbench-server --no-pager -o short-monotonic | sed 's/^/   | /'
pass "2. kbench-server is active (pid $(inside systemctl show -p MainPID --value kbench-server))"

step "3. kbench against it (TLS, the bootstrap admin's token)"
kbench() {
  nsenter -t "$leader" -n /usr/bin/env -i PATH=/usr/bin:/bin HOME="$work" KBENCH_TOKEN="$token" \
    build/client/kbench --server 127.0.0.1:50051 --tls --ca "$work/ca.crt" --quiet "$@"
}
kbench whoami >"$work/whoami.txt" 2>&1 || fail "kbench whoami: $(cat "$work/whoami.txt")"
sed 's/^/   | /' "$work/whoami.txt"
grep -qw admin "$work/whoami.txt" || fail "whoami does not say admin"
kbench vector-add --n 100003 --variant naive,vectorized --budget-ms 200 >"$work/va.txt" 2>&1 ||
  fail "kbench vector-add: exit $?: $(cat "$work/va.txt")"
sed 's/^/   | /' "$work/va.txt"
pass "3. whoami: admin; vector add n=100003 verified (exit 0)"

step "4. systemd-analyze security kbench-server"
inside systemd-analyze security --no-pager kbench-server >"$work/security.txt" 2>&1 ||
  { cat "$work/security.txt" >&2; fail "systemd-analyze security"; }
grep -v '^  ✓' "$work/security.txt" | sed 's/^/   | /'
score=$(grep -o 'Overall exposure level for kbench-server.service: .*' "$work/security.txt")
# The unit's device lines, in a transient unit (root, so that only the
# device policy can refuse), against /dev/net/tun (nspawn's, 10:200).
device_props=()
while IFS= read -r line; do device_props+=(-p "$line"); done \
  < <(grep -E '^Device(Policy|Allow)=' deploy/systemd/kbench-server.service)
probe='exec 3<>/dev/net/tun && echo opened'
with=$(inside systemd-run --wait -q -P "${device_props[@]}" sh -c "$probe" 2>&1 || true)
without=$(inside systemd-run --wait -q -P sh -c "$probe" 2>&1 || true)
step "   /dev/net/tun with the unit's $((${#device_props[@]} / 2)) device lines: $with"
step "   /dev/net/tun without them: $without"
[ "$without" = opened ] || fail "the device probe cannot open /dev/net/tun even without a device policy"
grep -q 'Operation not permitted' <<<"$with" || fail "DevicePolicy= is not enforced here: $with"
pass "4. $score; DevicePolicy=closed enforced (BPF, cgroup v2)"

step "5. systemctl stop kbench-server while a run is in flight"
runs_before=$(inside journalctl -u kbench-server --no-pager -o cat | grep -c ' started on device' || true)
kbench vector-add --n 16Mi --variant naive,vectorized --min-time-ms 6000 --budget-ms 6000 \
  >"$work/inflight.txt" 2>&1 &
client_pid=$!
started=0
for _ in $(seq 1 300); do
  inside journalctl -u kbench-server --no-pager -o cat | grep -c ' started on device' | grep -qx $((runs_before + 1)) && { started=1; break; }
  kill -0 "$client_pid" 2>/dev/null || break
  sleep 0.1
done
[ $started -eq 1 ] || fail "the long run did not start: $(cat "$work/inflight.txt")"
sleep 1
t0=$(date +%s.%N)
inside systemctl stop kbench-server || fail "systemctl stop kbench-server"
t1=$(date +%s.%N)
set +e
wait "$client_pid"
client_rc=$?
set -e
client_pid=""
inside journalctl -u kbench-server --no-pager -o short-monotonic | sed 's/^/   | /'
show=$(inside systemctl show -p ActiveState,Result,ExecMainCode,ExecMainStatus kbench-server | paste -sd' ')
step "   $show; stop took $(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.1f", b - a}') s; the in-flight client exited $client_rc"
journal=$(inside journalctl -u kbench-server --no-pager -o cat)
grep -q 'received SIGTERM: draining' <<<"$journal" || fail "the journal has no drain"
# The in-flight run (the second) ends OK after SIGTERM, before "stopped".
awk '/received SIGTERM: draining/ {d = 1} d && / ended after .*: OK$/ {e = 1} e && / stopped$/ {s = 1} END {exit !s}' \
  <<<"$journal" || fail "the journal does not show the run ending OK during the drain, then stopped"
grep -q 'ActiveState=inactive' <<<"$show" && grep -q 'Result=success' <<<"$show" &&
  grep -q 'ExecMainStatus=0' <<<"$show" || fail "kbench-server did not end cleanly: $show"
[ "$client_rc" -eq 0 ] || fail "the in-flight run's client exited $client_rc: $(cat "$work/inflight.txt")"
pass "5. SIGTERM drained the in-flight run (it verified, exit 0), then kbench-server exited 0: inactive, not failed"
step "PASS: deploy/systemd/kbench-server.service under systemd, hardened, CPU backend"
