#!/usr/bin/env bash
# Attention on the GPU machine in one call, everything in the same run:
#   1. the GPU tests: kbench_gpu_attention_test (kernels and the CUDA
#      backend's attention) and, when bundled, kbench_gpu_tests;
#   2. kbench_attention_bench BENCH_ARGS (the kernels alone, the server's
#      cold samples in do_bench's budget; --grid for the FlashAttention grid);
#   3. the PyTorch peers (attention_peers.py, PEER_ARGS);
#   4. when kbench-server and kbench are bundled: the server on the GPU, the
#      CLI's naive-vs-fused table for --batch 4 --heads 16 --seq 4096
#      --head-dim 128 --dtype fp16, and the grid through the server
#      (SERVER_DTYPES, default "fp16 fp32"; `kbench --json attention ...
#      --variant naive,fused`, naive and fused interleaved by the runner);
#   5. the raw outputs packed into one data file (attention_table.py pack),
#      from which scripts/bench/make_perf_docs.sh makes docs/perf/attention.md.
# Usage, from the repo root on the GPU machine:
#   scripts/bench/attention_gpu.sh BUNDLE [BENCH_ARGS...]
# BUNDLE holds the executables and lib/ (scripts/bundle-for-device.sh). Files
# go to $OUT: attention.json, cli.txt, kbench.jsonl, peers.jsonl, the test logs
# and raw.tar.gz (the server's JSON, stderr logs, nvidia-smi readings).
# Reads only: never changes the GPU's clocks or settings.
set -uo pipefail
cd "$(dirname "$0")/../.."
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
smi

if [ -z "${SKIP_TESTS:-}" ]; then
  for t in kbench_gpu_attention_test kbench_gpu_tests; do
    [ -x "$bundle/$t" ] || continue
    timeout 400 "$bundle/$t" --gtest_brief=1 >"$out/$t.log" 2>&1 || status=1
    echo "$t: $(grep -E '^\[  (PASSED|FAILED) ' "$out/$t.log" | tr '\n' ' ')"
  done
fi

timeout 400 "$bundle/kbench_attention_bench" "$@" >"$out/kbench.jsonl" \
  2>"$raw/bench.err" || status=1
smi
timeout 400 python3 scripts/bench/attention_peers.py ${PEER_ARGS:-} \
  --out "$out/peers.jsonl" >/dev/null 2>"$raw/peers.err" || status=1
smi

if [ -x "$bundle/kbench-server" ] && [ -x "$bundle/kbench" ]; then
  "$bundle/kbench-server" --backend cuda --listen 127.0.0.1:0 --http off \
    --store "$raw/store.sqlite" \
    >"$raw/server.out" 2>"$raw/server.err" &
  server=$!
  port=""
  for _ in $(seq 1 120); do
    port=$(sed -n 's/^kbench-server listening on 127\.0\.0\.1:\([0-9]*\)$/\1/p' "$raw/server.out")
    [ -n "$port" ] && break
    kill -0 "$server" 2>/dev/null || break
    sleep 0.5
  done
  if [ -z "$port" ]; then
    status=1
    echo "server did not start:"; tail -5 "$raw/server.err"
  else
    kb=("$bundle/kbench" --server "127.0.0.1:$port")
    timeout 120 "${kb[@]}" attention --batch 4 --heads 16 --seq 4096 \
      --head-dim 128 --dtype fp16 --variant naive,fused >"$out/cli.txt" 2>&1 || status=1
    for dtype in ${SERVER_DTYPES:-fp16 fp32}; do
      for d in 64 128; do
        for n in 512 1024 2048 4096 8192 16384; do
          for causal in "" --causal; do
            timeout 120 "${kb[@]}" --json --quiet attention --batch $((16384 / n)) \
              --heads $((2048 / d)) --seq "$n" --head-dim "$d" $causal \
              --dtype "$dtype" --variant naive,fused --budget-ms "${SERVER_BUDGET_MS:-400}" \
              >"$raw/server_${dtype}_${d}_${n}${causal:+_causal}.json" \
              2>>"$raw/server_runs.err" || status=1
          done
        done
      done
    done
    kill "$server" 2>/dev/null
    wait "$server" 2>/dev/null
  fi
fi
smi

python3 scripts/bench/attention_table.py pack \
  --command "scripts/gpu_check.sh device (scripts/bench/attention_gpu.sh $bundle $*)" \
  --data "$out/attention.json" "$out/kbench.jsonl" "$out/peers.jsonl" \
  "$raw"/server_*.json 2>>"$raw/table.err" || status=1
cp "$raw/gpu.txt" "$out/gpu.txt"
tar -czf "$out/raw.tar.gz" -C "$raw" .
cat "$out/cli.txt" 2>/dev/null
exit $status
