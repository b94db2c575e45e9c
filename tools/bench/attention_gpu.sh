#!/usr/bin/env bash
# Attention on the GPU machine in one call, everything in the same run:
#   1. the GPU tests: kbench_gpu_attention_test (kernels and the CUDA
#      backend's attention) and, when bundled, kbench_gpu_tests;
#   2. kbench_attention_bench (the kernels alone, checked by the op's
#      verifier, the server's cold samples in do_bench's budget) and 3. the
#      PyTorch peers (attention_peers.py) over the same points: the
#      FlashAttention grid (--grid) and the low-parallelism shapes
#      (--shapes, tools/bench/attention_grid.py),
#      narrowed by POINT_FLAGS; both sides' --list must agree before
#      anything is timed. ROUNDS times (default 2), the bench's and the
#      peers' in turn, so that a drift of the GPU's clocks over the call
#      reaches both sides alike; each point keeps its median round
#      (attention_table.py pack);
#   4. when kbench-server and kbench are bundled: the server on the GPU, the
#      CLI's naive-vs-fused table for --batch 4 --heads 16 --seq 4096
#      --head-dim 128 --dtype fp16, and the grid through the server
#      (`kbench --json attention ... --variant naive,fused`, naive and fused
#      interleaved by the runner) in SERVER_DTYPES (default "fp16 fp32"; ""
#      for none) and SERVER_DIMS (default "64 128"; bf16 and 256 on asking);
#      no run starts after DEADLINE_S (default 420) seconds of this script;
#   5. the raw outputs packed into one data file (attention_table.py pack),
#      from which tools/bench/make_perf_docs.sh makes docs/perf/attention.md,
#      and the goals' summary lines printed.
# Usage, from the repo root on the GPU machine:
#   tools/bench/attention_gpu.sh BUNDLE [POINT_FLAGS...]
# POINT_FLAGS narrow the points of both the bench and the peers: --dtypes
# (default all), --dims (default all), --causal 0|1|both. The
# whole grid takes two calls of the device tool (~8 minutes each at most):
#   SKIP_TESTS=1 SERVER_DTYPES=fp16 ... attention_gpu.sh .gpu --dtypes fp16,bf16
#   SERVER_DTYPES=fp32 ...              attention_gpu.sh .gpu --dtypes fp32
# and the two attention.json are merged here with
#   attention_table.py pack --data docs/perf/data/attention.json A.json B.json
# BENCH_ARGS (e.g. --mma-configs) go to the bench alone, PEER_ARGS (e.g.
# --eager-tf32) to the peers alone. BUNDLE holds the executables and lib/
# (scripts/bundle-for-device.sh). Files go to $OUT: attention.json, cli.txt,
# kbench_R.jsonl and peers_R.jsonl (round R), the test logs and raw.tar.gz
# (the server's JSON, stderr logs, nvidia-smi readings). Progress goes to
# stdout.
# Reads only: never changes the GPU's clocks or settings.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
bundle=$1; shift
out=${OUT:-$PWD/gpu-out}
raw=$(mktemp -d)
mkdir -p "$out"
export LD_LIBRARY_PATH="$PWD/$bundle/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PYTHONUNBUFFERED=1
status=0
smi() {
  nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw \
    --format=csv,noheader >>"$raw/gpu.txt"
}
note() { echo "== $* ($SECONDS s)"; }
smi

points=(--grid --shapes "$(python3 tools/bench/attention_grid.py low-par)" "$@")
if ! "$bundle/kbench_attention_bench" --list "${points[@]}" >"$raw/points.txt" ||
  ! python3 tools/bench/attention_peers.py --list "${points[@]}" \
    >"$raw/peer_points.txt"; then
  echo "no points for ${points[*]}"
  exit 2
fi
if ! diff "$raw/points.txt" "$raw/peer_points.txt" >"$raw/points.diff"; then
  echo "the bench and the peers disagree on the points of ${points[*]}:"
  head -20 "$raw/points.diff"
  exit 2
fi
count=$(wc -l <"$raw/points.txt")

if [ -z "${SKIP_TESTS:-}" ]; then
  for t in kbench_gpu_attention_test kbench_gpu_tests; do
    [ -x "$bundle/$t" ] || continue
    note "$t"
    timeout 400 "$bundle/$t" --gtest_brief=1 >"$out/$t.log" 2>&1 || status=1
    echo "$t: $(grep -E '^\[  (PASSED|FAILED) ' "$out/$t.log" | tr '\n' ' ')"
  done
fi

rounds=${ROUNDS:-2}
for ((round = 1; round <= rounds; round++)); do
  note "kbench_attention_bench: $count points, round $round of $rounds"
  # shellcheck disable=SC2086  # BENCH_ARGS and PEER_ARGS are lists of flags
  timeout "${BENCH_TIMEOUT_S:-300}" "$bundle/kbench_attention_bench" "${points[@]}" \
    ${BENCH_ARGS:-} 2>&1 >"$out/kbench_$round.jsonl" | tee -a "$raw/bench.err" || status=1
  smi
  note "peers: $count points, round $round of $rounds"
  # shellcheck disable=SC2086
  timeout "${PEER_TIMEOUT_S:-300}" python3 tools/bench/attention_peers.py \
    "${points[@]}" ${PEER_ARGS:-} --l2-flush-lib "$bundle/lib/libkbench_l2_flush.so" --out "$out/peers_$round.jsonl" 2>&1 >/dev/null |
    tee -a "$raw/peers.err" || status=1
  smi
done

if [ -x "$bundle/kbench-server" ] && [ -x "$bundle/kbench" ]; then
  "$bundle/kbench-server" --backend cuda --listen 127.0.0.1:0 --http off \
    --store "$raw/store.sqlite" --auth off \
    >"$raw/server.out" 2>"$raw/server.err" &
  server=$!
  port=""
  for _ in $(seq 1 120); do
    port=$(sed -n 's/^kbench-server listening on 127\.0\.0\.1:\([0-9]*\)$/\1/p' "$raw/server.out" 2>/dev/null)
    [ -n "$port" ] && break
    kill -0 "$server" 2>/dev/null || break
    sleep 0.5
  done
  if [ -z "$port" ]; then
    status=1
    echo "server did not start:"; tail -5 "$raw/server.err"
  else
    kb=("$bundle/kbench" --server "127.0.0.1:$port")
    note "the CLI's table"
    timeout 120 "${kb[@]}" attention --batch 4 --heads 16 --seq 4096 \
      --head-dim 128 --dtype fp16 --variant naive,fused >"$out/cli.txt" 2>&1 || status=1
    runs=()
    for dtype in ${SERVER_DTYPES-fp16 fp32}; do
      for d in ${SERVER_DIMS:-64 128}; do
        for n in 512 1024 2048 4096 8192 16384; do
          runs+=("$dtype $d $n" "$dtype $d $n --causal")
        done
      done
    done
    note "the grid through the server: ${#runs[@]} runs"
    done_runs=0
    for run in "${runs[@]}"; do
      if [ "$SECONDS" -ge "${DEADLINE_S:-420}" ]; then
        echo "server grid: out of time, $((${#runs[@]} - done_runs)) runs left out"
        status=1
        break
      fi
      read -r dtype d n causal <<<"$run"
      timeout 120 "${kb[@]}" --json --quiet attention --batch $((16384 / n)) \
        --heads $((2048 / d)) --seq "$n" --head-dim "$d" ${causal:+"$causal"} \
        --dtype "$dtype" --variant naive,fused --budget-ms "${SERVER_BUDGET_MS:-400}" \
        >"$raw/server_${dtype}_${d}_${n}${causal:+_causal}.json" \
        2>>"$raw/server_runs.err" || status=1
      done_runs=$((done_runs + 1))
      echo "[$done_runs/${#runs[@]}] server $run ($SECONDS s)"
    done
    kill "$server" 2>/dev/null
    wait "$server" 2>/dev/null
  fi
fi
smi

note "pack"
# The command as run, with the settings that change what it measures.
command="tools/bench/attention_gpu.sh $bundle $*"
for var in ROUNDS SKIP_TESTS SERVER_DTYPES SERVER_DIMS BENCH_ARGS PEER_ARGS; do
  [ -n "${!var+set}" ] && command="$var=\"${!var}\" $command"
done
shopt -s nullglob
python3 tools/bench/attention_table.py pack --command "$command" \
  --data "$out/attention.json" "$out"/kbench_*.jsonl "$out"/peers_*.jsonl \
  "$raw"/server_*.json 2>>"$raw/table.err" || status=1
cp "$raw/gpu.txt" "$out/gpu.txt"
tar -czf "$out/raw.tar.gz" -C "$raw" .
cat "$out/cli.txt" 2>/dev/null
python3 tools/bench/attention_table.py goals --data "$out/attention.json"
note "done, status $status"
exit $status
