#!/usr/bin/env bash
# A change to the fused attention kernels timed beside the kernels before it,
# on the GPU machine in one call: two builds of kbench_attention_bench (the
# base, then the new, in each of ROUNDS rounds, default 2) over the same
# points, fused only, every run checked by the op's verifier. Each round
# gives $OUT/ab_base_R.jsonl and $OUT/ab_new_R.jsonl (the bench's JSON lines)
# and their .err (progress and the "device:" line); the trial is packed here
# into docs/perf/data/attention_trials.json and rendered in
# docs/perf/attention_trials.md:
#   tools/bench/attention_trials_table.py pack --data docs/perf/data/attention_trials.json \
#     --name NAME --question TEXT --base TEXT --new TEXT --command "..." OUT
#   tools/bench/make_perf_docs.sh
# Usage, from the repo root on the GPU machine, the bundle's lib/ on
# LD_LIBRARY_PATH:
#   tools/bench/attention_ab.sh BASE_BENCH NEW_BENCH POINT_FLAGS...
# POINT_FLAGS are the bench's: --shapes, --grid, --dims, --dtypes, --causal.
# Each bench run stops after BENCH_TIMEOUT_S (default 200) seconds. Progress
# goes to stdout. Reads only: never changes the GPU's clocks or settings.
set -uo pipefail
if [ $# -lt 3 ]; then
  echo "usage: $0 BASE_BENCH NEW_BENCH POINT_FLAGS..." >&2
  exit 2
fi
base=$1 new=$2
shift 2
out=${OUT:-$PWD/ab-out}
mkdir -p "$out"
for bin in "$base" "$new"; do
  [ -x "$bin" ] || { echo "$bin: not an executable" >&2; exit 2; }
done
if ! diff <("$base" --list "$@") <("$new" --list "$@") >/dev/null; then
  echo "the two benches disagree on the points of $*" >&2
  exit 2
fi
status=0
for ((round = 1; round <= ${ROUNDS:-2}; round++)); do
  for side in base new; do
    bin=$base
    [ "$side" = new ] && bin=$new
    timeout "${BENCH_TIMEOUT_S:-200}" "$bin" "$@" --variants fused \
      >"$out/ab_${side}_$round.jsonl" 2>"$out/ab_${side}_$round.err" || status=1
    echo "round $round, $side: $(grep -c '"ok":true' "$out/ab_${side}_$round.jsonl") verified ($SECONDS s)"
  done
done
exit $status
