#!/usr/bin/env bash
# Regenerates every doc of docs/perf from the raw JSON committed in
# docs/perf/data/ (tools/bench/*_table.py render, and
# tools/store_scale/store_scale_table.py and tools/queue_scale/queue_scale_table.py
# for the store's and the shared queue's scale; prose outside the
# generated sections is left alone). attention.md also reads
# docs/perf/data/attention_ncu.json, ncu's readings of the misses
# (tools/bench/attention_ncu.sh), and says when there is none yet, and
# attention_splits.json and attention_inputs.json, the splits' sweep and the
# peers' two input draws.
#   make_perf_docs.sh           rewrite the docs in place
#   make_perf_docs.sh --check   regenerate into a scratch copy and fail if
#                               it differs from the committed docs (a test)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
docs=(vector_add vector_add_shapes attention attention_fp8 attention_fp8_trials attention_trials store_scale
  queue_scale learner_kernels cold_state kernel_clock)

# render DOC OUT.md: the doc's generated section from its data, into OUT.md.
render() {
  local args=(--data "docs/perf/data/$1.json" --doc "$2")
  case $1 in
    attention) args+=(--ncu docs/perf/data/attention_ncu.json --splits docs/perf/data/attention_splits.json
      --inputs docs/perf/data/attention_inputs.json) ;;
  esac
  local script="tools/bench/${1}_table.py"
  [ "$1" = store_scale ] && script=tools/store_scale/store_scale_table.py
  [ "$1" = queue_scale ] && script=tools/queue_scale/queue_scale_table.py
  python3 "$script" render "${args[@]}"
}

if [ "${1:-}" = "--check" ]; then
  scratch=$(mktemp -d)
  trap 'rm -rf "$scratch"' EXIT
  status=0
  for doc in "${docs[@]}"; do
    cp "docs/perf/$doc.md" "$scratch/$doc.md"
    render "$doc" "$scratch/$doc.md"
    if ! diff -u "docs/perf/$doc.md" "$scratch/$doc.md"; then
      echo "docs/perf/$doc.md differs from what docs/perf/data/$doc.json generates;" \
           "run tools/bench/make_perf_docs.sh" >&2
      status=1
    fi
  done
  exit $status
fi

for doc in "${docs[@]}"; do
  render "$doc" "docs/perf/$doc.md"
done
