#!/usr/bin/env bash
# The main job: installs what is missing, builds, starts a local kbench-server
# on its built-in defaults (127.0.0.1:50051, --backend auto), and runs the
# client against it: the server's description, a vector add of naive against
# vectorized, and an attention run of naive against fused. Stops the server
# on exit. Exits non-zero if any step or any verification fails.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh --target kbench-server kbench
build_dir=${BUILD_DIR:-build}
server_log=$(mktemp -t kbench-server.XXXXXX.log)
"$build_dir/server/kbench-server" >"$server_log.out" 2>"$server_log" &
server_pid=$!
trap 'kill "$server_pid" 2>/dev/null; wait "$server_pid" 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do
  grep -q "listening on" "$server_log.out" 2>/dev/null && break
  if ! kill -0 "$server_pid" 2>/dev/null; then
    echo "run.sh: kbench-server did not start:" >&2
    cat "$server_log" >&2
    exit 1
  fi
  sleep 0.1
done
cat "$server_log.out"
kbench="$build_dir/client/kbench"
export KBENCH_SERVER=127.0.0.1:50051
step() { echo; echo "\$ kbench $*"; "$kbench" "$@"; }
step info
step vector-add --n 16Mi --variant naive,vectorized
step attention --batch 1 --heads 4 --seq 512 --head-dim 64 --variant naive,fused
