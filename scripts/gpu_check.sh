#!/usr/bin/env bash
# The whole GPU check of kbench, in two halves:
#
#   scripts/gpu_check.sh [build]   here, on a machine with nvcc and no GPU:
#       configures BUILD_DIR (default build-gpu) for sm_90 (Release; ccache as
#       the compiler launcher where installed), builds
#       kbench-server, kbench-worker, kbench, the GPU tests (kbench_gpu_tests,
#       kbench_gpu_attention_test) and the perf lab's binaries
#       (kbench_attention_bench, kbench_cold_state_probe,
#       lib/libkbench_vector_add_shapes.so), and bundles them with the
#       libraries the GPU machine lacks into .gpu/ (ignored by git), with tools/bench
#       beside them (scripts/bundle-for-device.sh). JOBS (default 2) is the
#       build's parallelism.
#
#   scripts/gpu_check.sh device    on the GPU machine, from the repo root,
#       with .gpu carried (run tool: carry [".gpu"]) or, when .gpu is too
#       large to carry, the .gpu.tar.gz the build also writes (carry
#       [".gpu.tar.gz"]; device unpacks it when .gpu is absent), all in the
#       same run:
#       1. the GPU tests: kbench_gpu_tests, kbench_gpu_attention_test and
#          kbench_gpu_mutation_test;
#       2. vector add: kbench-server --backend cuda on 127.0.0.1:0, and
#          through it `kbench --json vector-add --variant naive,vectorized`
#          for n = 2^16, 2^17, 2^18, 2^20 to 2^24, 2^26 and 2^28, cold and
#          hot, each request twice
#          (the second checks that two runs agree); the peers
#          (tools/bench/vector_add_peers.py: torch.add cold with kbench's
#          own L2 flush, .gpu/lib/libkbench_l2_flush.so, hot with
#          triton's do_bench_cudagraph, and the
#          device copy bandwidth); the table
#          (tools/bench/vector_add_table.py, with the margins as figures:
#          cold over hot, and the grid sweep of gpu_tests.log);
#          then attention with batch * heads = 1024 in every dtype (every
#          element checked on the device), and a real sticky CUDA error in
#          the worker (tools/bench/fault_check.py: the run ends with the
#          error, the worker restarts, the next run verifies), and a Triton
#          kernel compiled to PTX and run through the CLI
#          (tools/bench/triton_check.py); then a whole
#          lab (tools/bench/course_check.py: two assignments, five learners,
#          starter kernels with deliberate mistakes, the leaderboards and
#          the roster as expected; course_check.txt and course/ in $OUT);
#       3. attention (tools/bench/attention_gpu.sh): the kernels alone over
#          the FlashAttention grid and the low-parallelism shapes in fp16
#          and fp32 at d 64 and 128 (the whole grid, bf16 and d 256 too,
#          takes attention_gpu.sh's two calls), the
#          PyTorch peers (eager TinyGPT attention, SDPA flash, cuDNN,
#          efficient), the same grid through kbench-server, the CLI's
#          naive-vs-fused table, and the attention table;
#       4. fp8 attention (tools/bench/attention_fp8_gpu.py --ncu): fused in
#          fp8 beside fp16 and bf16 at d = 128, N >= 4096, through the
#          server, then Nsight Compute on one fp8 and one fp16 launch.
#       Files in $OUT: vector_add.json, attention.json and attention_fp8.json
#       (the raw data: copy them to docs/perf/data/ and run
#       tools/bench/make_perf_docs.sh), attention_cli.txt, gpu_tests.log,
#       gpu_attention_tests.log, check.log, raw.tar.gz (all JSON and logs).
#
#   scripts/gpu_check.sh multi     on a machine with two or more GPUs, with
#       .gpu carried: one server over every GPU, the same run on each alone
#       and then on all at once (tools/bench/multi_gpu_check.py).
#       Reads only: it never changes the GPU's clocks or settings.
#       KBENCH_BACKEND (default cuda) lets the vector add flow be tried on a
#       CPU machine with --backend cpu, and KBENCH_CHECK_SIZES (default as
#       in step 2) and KBENCH_HOT_SIZES (those also run hot) smaller sizes
#       for it; KBENCH_SKIP_ATTENTION=1 leaves step 3 out, KBENCH_SKIP_FP8=1 step 4. The results
#       of such a run are not GPU figures. To fit the device tool's 10
#       minutes a call, the steps can be split over calls:
#       KBENCH_SKIP_TESTS=1 (step 1), KBENCH_SKIP_VECTOR_ADD=1 (the vector
#       add timings and peers of step 2), KBENCH_SKIP_CHECKS=1 (the
#       all-elements and fault checks of step 2), KBENCH_SKIP_COURSE=1 (the
#       lab of step 2).
set -uo pipefail
cd "$(dirname "$0")/.."
mode=${1:-build}
# The vector add's sizes (KBENCH_CHECK_SIZES) and those also timed hot
# (KBENCH_HOT_SIZES), unless the environment names others.
default_sizes="65536 131072 262144 1048576 2097152 4194304 8388608 16777216 67108864 268435456"
default_hot="$default_sizes"

build() {
  set -e
  local dir=${BUILD_DIR:-build-gpu}
  local launcher=()
  if command -v ccache >/dev/null 2>&1; then
    launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
  fi
  cmake -S . -B "$dir" -DKBENCH_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DCMAKE_BUILD_TYPE=Release "${launcher[@]}"
  cmake --build "$dir" -j"${JOBS:-2}" \
    --target kbench-server kbench-worker kbench-compile kbench kbench_gpu_tests \
    kbench_gpu_attention_test kbench_gpu_mutation_test kbench_attention_bench kbench_l2_flush \
    kbench_kernel_clock kbench_cold_state_probe kbench_vector_add_shapes
  rm -rf .gpu
  scripts/bundle-for-device.sh .gpu "$dir/server/kbench-server" \
    "$dir/server/kbench-worker" "$dir/server/kbench-compile" \
    "$dir/client/kbench" "$dir/tests/kbench_gpu_tests" \
    "$dir/tests/kbench_gpu_attention_test" "$dir/tests/kbench_gpu_mutation_test" \
    "$dir/tools/bench/kbench_attention_bench" "$dir/tools/bench/kbench_cold_state_probe"
  cp -L "$dir/kernels/cuda_runtime/libkbench_l2_flush.so" \
    "$dir/kernels/cuda_runtime/libkbench_kernel_clock.so" \
    "$dir/tools/bench/libkbench_vector_add_shapes.so" .gpu/lib/
  cp -r tools/bench .gpu/bench
  rm -rf .gpu/bench/__pycache__
  local exclude
  exclude=$(git rev-parse --git-path info/exclude)
  mkdir -p "$(dirname "$exclude")"
  grep -qxF '/.gpu/' "$exclude" 2>/dev/null || echo '/.gpu/' >>"$exclude"
  grep -qxF '/.gpu.tar.gz' "$exclude" 2>/dev/null || echo '/.gpu.tar.gz' >>"$exclude"
  tar -czf .gpu.tar.gz .gpu
  echo "bundled into .gpu ($(du -sm .gpu | cut -f1) MB) and .gpu.tar.gz" \
    "($(du -sm .gpu.tar.gz | cut -f1) MB); on the GPU machine run: scripts/gpu_check.sh device"
}

device() {
  [ -d .gpu ] || [ ! -f .gpu.tar.gz ] || tar -xzf .gpu.tar.gz
  local out=${OUT:-$PWD/gpu-out}
  mkdir -p "$out"
  local raw
  raw=$(mktemp -d)
  local log=$raw/check.log
  local failed=0
  export LD_LIBRARY_PATH="$PWD/.gpu/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  export PYTHONUNBUFFERED=1
  local bench=.gpu/bench
  [ -d "$bench" ] || bench=tools/bench
  note() { echo "== $*" | tee -a "$log"; }

  note "$(date -u +%FT%TZ) gpu_check device on $(hostname)"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw,utilization.gpu \
    --format=csv >>"$log" 2>&1

  if [ -z "${KBENCH_SKIP_TESTS:-}" ]; then
  note "GPU tests"
  timeout 400 .gpu/kbench_gpu_tests --gtest_output="json:$raw/gpu_tests.json" \
    >"$out/gpu_tests.log" 2>&1 || { failed=1; note "GPU tests FAILED"; }
  grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$out/gpu_tests.log" | tee -a "$log"
  if [ -x .gpu/kbench_gpu_attention_test ]; then
    timeout 400 .gpu/kbench_gpu_attention_test \
      --gtest_output="json:$raw/gpu_attention_tests.json" \
      >"$out/gpu_attention_tests.log" 2>&1 || { failed=1; note "GPU attention tests FAILED"; }
    grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$out/gpu_attention_tests.log" | tee -a "$log"
  fi
  timeout 300 .gpu/kbench_gpu_mutation_test >"$out/gpu_mutation_tests.log" 2>&1 ||
    { failed=1; note "GPU mutation tests FAILED"; }
  grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$out/gpu_mutation_tests.log" | tee -a "$log"
  fi

  local backend=${KBENCH_BACKEND:-cuda}
  note "kbench-server --backend $backend"
  .gpu/kbench-server --backend "$backend" --listen 127.0.0.1:0 --http off \
    --store "$raw/store.sqlite" --auth off --enable-fault-injection \
    >"$raw/server.out" 2>"$raw/server.err" &
  local server_pid=$!
  local port=""
  for _ in $(seq 1 120); do
    port=$(sed -n 's/^kbench-server listening on 127\.0\.0\.1:\([0-9]*\)$/\1/p' \
      "$raw/server.out")
    [ -n "$port" ] && break
    kill -0 "$server_pid" 2>/dev/null || break
    sleep 0.5
  done
  if [ -z "$port" ]; then
    failed=1
    note "server did not start"; cat "$raw/server.err" | tee -a "$log"
  else
    local kb=(.gpu/kbench --server "127.0.0.1:$port")
    timeout 60 "${kb[@]}" --json info >"$raw/info.json" 2>>"$log" || failed=1
    local sizes=(${KBENCH_CHECK_SIZES:-$default_sizes})
    local hot=(${KBENCH_HOT_SIZES:-$default_hot})
    local specs=() n m largest=${sizes[-1]}
    for n in "${sizes[@]}"; do
      specs+=("$n:cold")
      [[ " ${hot[*]} " == *" $n "* ]] && specs+=("$n:hot")
    done
    [ -n "${KBENCH_SKIP_VECTOR_ADD:-}" ] && specs=()
    for repeat in 1 2; do
      for spec in "${specs[@]}"; do
        n=${spec%%:*}
        m=${spec##*:}
        note "kbench vector-add n=$n mode=$m repeat $repeat"
        timeout 180 "${kb[@]}" --json vector-add --n "$n" \
          --variant naive,vectorized --mode "$m" \
          >"$raw/kbench_${n}_${m}_${repeat}.json" 2>>"$log" ||
          { failed=1; note "kbench run failed"; }
      done
    done
    # The human-readable report of one run, as a learner sees it.
    timeout 180 "${kb[@]}" vector-add --n "$largest" --variant naive,vectorized \
      >"$raw/kbench_text.txt" 2>&1 || failed=1
    if [ -z "${KBENCH_SKIP_CHECKS:-}" ]; then
      # batch * heads far above the row budget: every element is checked on
      # the device, sampled rows against the double reference.
      note "kbench attention, batch * heads = 1024, every dtype"
      for dtype in fp32 fp16 bf16; do
        timeout 180 "${kb[@]}" attention --batch 32 --heads 32 --seq 1024 \
          --head-dim 64 --dtype "$dtype" --variant naive,fused --budget-ms 500 \
          >"$raw/attention_all_elements_$dtype.txt" 2>&1 || failed=1
      done
      timeout 180 "${kb[@]}" --json attention --batch 32 --heads 32 --seq 1024 \
        --head-dim 64 --dtype fp16 --variant naive,fused --budget-ms 500 \
        >"$raw/attention_all_elements.json" 2>>"$log" || failed=1
      # A real sticky CUDA error in the worker: the run ends with INTERNAL,
      # the worker is restarted, the next run is verified.
      note "fault: illegal address in the worker, then a run on the new worker"
      python3 "$bench/fault_check.py" --server "127.0.0.1:$port" \
        --kbench .gpu/kbench >"$raw/fault_check.txt" 2>&1 || failed=1
      # A Triton kernel, compiled ahead of time to PTX with the machine's
      # Triton, submitted through the CLI beside the built-ins.
      note "triton: the example compiled to PTX and run through the CLI"
      python3 "$bench/triton_check.py" --server "127.0.0.1:$port" \
        --kbench .gpu/kbench --out "$raw/triton" >"$raw/triton_check.txt" 2>&1 || failed=1
    fi
    kill "$server_pid" 2>/dev/null
    wait "$server_pid" 2>/dev/null
  fi

  if [ -z "${KBENCH_SKIP_COURSE:-}" ]; then
    # A whole lab through the CLI: an instructor, five learners, two
    # assignments, starter kernels with deliberate mistakes.
    note "course: two assignments, five learners (tools/bench/course_check.py)"
    timeout 540 python3 "$bench/course_check.py" --server-bin .gpu/kbench-server \
      --kbench .gpu/kbench --kernels docs/examples/kernels --out "$out/course" \
      >"$raw/course_check.txt" 2>&1 || { failed=1; note "course check FAILED"; }
    cp "$raw/course_check.txt" "$out/course_check.txt"
  fi

  if [ -z "${KBENCH_SKIP_VECTOR_ADD:-}" ]; then
  note "peers: torch.add and copy bandwidth (vector_add_peers.py)"
  local csv hot_csv
  csv=$(echo ${KBENCH_CHECK_SIZES:-$default_sizes} | tr ' ' ,)
  hot_csv=$(echo ${KBENCH_HOT_SIZES:-$default_hot} | tr ' ' ,)
  timeout 300 python3 "$bench/vector_add_peers.py" --out "$raw/peers.json" \
    --l2-flush-lib .gpu/lib/libkbench_l2_flush.so --sizes "$csv" --hot-sizes "$hot_csv" \
    2>&1 | tee -a "$log" || failed=1

  if [ -s "$raw/info.json" ] && [ -s "$raw/peers.json" ]; then
    python3 "$bench/vector_add_table.py" pack --dir "$raw" \
      --data "$out/vector_add.json" \
      --command "scripts/gpu_check.sh build (here), then scripts/gpu_check.sh device (GPU machine)" \
      --grid-log "$out/gpu_tests.log" \
      >/dev/null 2>>"$log" || failed=1
  else
    failed=1
  fi
  fi
  if [ -z "${KBENCH_SKIP_ATTENTION:-}" ]; then
    note "attention: kernels, peers and the server over the FlashAttention grid"
    mkdir -p "$raw/attention"
    # One round (attention_gpu.sh's ROUNDS) keeps this step inside the call.
    OUT="$raw/attention" SKIP_TESTS=1 ROUNDS=1 DEADLINE_S=360 timeout 420 \
      bash tools/bench/attention_gpu.sh .gpu --dtypes fp16,fp32 --dims 64,128 \
      >"$raw/attention/run.log" 2>&1 ||
      { failed=1; note "attention check FAILED"; }
    cp "$raw/attention/attention.json" "$out/attention.json" 2>/dev/null || failed=1
    cp "$raw/attention/cli.txt" "$out/attention_cli.txt" 2>/dev/null || failed=1
  fi
  if [ -z "${KBENCH_SKIP_FP8:-}" ]; then
    note "fp8 attention: fused in fp8 beside fp16 and bf16, through the server"
    timeout 300 python3 tools/bench/attention_fp8_gpu.py --server-bin .gpu/kbench-server \
      --kbench .gpu/kbench --ncu --out "$out/attention_fp8.json" >"$raw/attention_fp8.log" 2>&1 ||
      { failed=1; note "fp8 attention FAILED"; }
  fi
  cp "$log" "$out/check.log"
  tar -czf "$out/raw.tar.gz" -C "$raw" .
  echo
  cat "$raw/kbench_text.txt" 2>/dev/null
  cat "$raw/attention_all_elements_fp16.txt" "$raw/fault_check.txt" 2>/dev/null
  [ -f "$out/attention_cli.txt" ] && cat "$out/attention_cli.txt"
  grep -E '^\[  (PASSED|FAILED) ' "$out"/gpu_*tests.log
  echo "gpu_check device: $([ $failed = 0 ] && echo OK || echo FAILED)"
  return $failed
}

# On a machine with two or more GPUs: one kbench-server over every GPU (one
# worker each); the same attention run on each device alone, then on both at
# once; each must verify, and the table shows each median alone and together.
multi() {
  local out=${OUT:-$PWD/gpu-out}
  mkdir -p "$out"
  export LD_LIBRARY_PATH="$PWD/.gpu/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  nvidia-smi -L >"$out/gpus.txt"
  .gpu/kbench-server --backend cuda --devices all --listen 127.0.0.1:0 --http off \
    --store "$out/store.sqlite" --auth off >"$out/server.out" 2>"$out/server.err" &
  local server_pid=$! port=""
  for _ in $(seq 1 240); do
    port=$(sed -n 's/^kbench-server listening on 127\.0\.0\.1:\([0-9]*\)$/\1/p' "$out/server.out")
    [ -n "$port" ] && break
    kill -0 "$server_pid" 2>/dev/null || break
    sleep 0.5
  done
  [ -n "$port" ] || { echo "server did not start"; tail "$out/server.err"; return 1; }
  python3 tools/bench/multi_gpu_check.py --server "127.0.0.1:$port" \
    --kbench .gpu/kbench --out "$out/multi_gpu.json" | tee "$out/multi_gpu.txt"
  local status=${PIPESTATUS[0]}
  kill "$server_pid"; wait "$server_pid"
  return "$status"
}

case "$mode" in
  build) build ;;
  device) device ;;
  multi) multi ;;
  *) echo "usage: $0 [build|device|multi]" >&2; exit 2 ;;
esac
