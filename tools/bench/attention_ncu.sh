#!/usr/bin/env bash
# Why the attention goals are missed, measured: Nsight Compute on the fused
# kernel at every point of DATA that misses a goal (attention_table.py
# misses: the page's own rule for a miss, the furthest from its goal first),
# one ncu call per point, each profiling the one fused launch of
#   kbench_attention_bench --shape B,H,N,D --dtypes DTYPE --causal C \
#     --variants fused --once
# (kernels Fused(Wgmma|Mma)Kernel, not the split-KV combine); then, with
# the same flags, the kernel of the peer whose goal each point misses (the
# first launch of `attention_ncu.py kernels --peer PEER` in
#   python3 tools/bench/attention_peers.py --shapes B,H,N,D \
#     --dtypes DTYPE --causal C --variants PEER --once,
# which needs PyTorch as attention_gpu.sh does): the
# sections SpeedOfLight, Occupancy and WarpStateStats, the tensor, FMA and
# XU pipes, achieved and theoretical occupancy, SM active cycles, DRAM
# throughput, the duration and the stall reasons per issued instruction.
# Until one point is read, a point that fails is tried again with the
# flags known to work on the H200 (sections, the hmma pipe, the stalls),
# which are kept if they read it (the failed try's log: ncu/*.first-try.log).
# Usage, from the repo root on the GPU machine:
#   tools/bench/attention_ncu.sh BUNDLE [DATA.json]
# BUNDLE holds kbench_attention_bench (one with --variants and --once) and
# lib/ (scripts/gpu_check.sh; BUNDLE.tar.gz is unpacked when BUNDLE is
# absent); DATA defaults to docs/perf/data/attention.json. ncu is looked
# for on PATH, then at /usr/local/cuda/bin/ncu; without it the script exits 2.
# Time: no point starts after DEADLINE_S (default 400) seconds, and each
# ncu call is stopped after POINT_TIMEOUT_S (default 60) or at the deadline;
# ONLY (an extended regex over "dtype B H N d causal") narrows the points,
# PEERS=0 leaves the peers' kernels out,
# so a run cut short can be finished in a second call, whose
# attention_ncu.json is merged with `attention_ncu.py pack --data
# docs/perf/data/attention_ncu.json A.json B.json`.
# Files go to $OUT: attention_ncu.json (copy it to docs/perf/data/ and run
# tools/bench/make_perf_docs.sh), and ncu/ with each point's ncu CSV and
# log (ncu's messages, the bench's JSON line and stderr). Progress, a line
# per point, goes to stdout. Reads only: --clock-control none leaves the
# GPU's clocks alone.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
if [ $# -lt 1 ] || [ $# -gt 2 ]; then
  echo "usage: $0 BUNDLE [DATA.json]" >&2
  exit 2
fi
bundle=$1
data=${2:-docs/perf/data/attention.json}
out=${OUT:-$PWD/ncu-out}
deadline=${DEADLINE_S:-400}
point_timeout=${POINT_TIMEOUT_S:-60}

ncu=$(command -v ncu || true)
[ -z "$ncu" ] && [ -x /usr/local/cuda/bin/ncu ] && ncu=/usr/local/cuda/bin/ncu
if [ -z "$ncu" ]; then
  echo "attention_ncu.sh: ncu (Nsight Compute) is neither on PATH nor at" \
    "/usr/local/cuda/bin/ncu" >&2
  exit 2
fi
[ -d "$bundle" ] || [ ! -f "$bundle.tar.gz" ] || tar -xzf "$bundle.tar.gz"
bench=$bundle/kbench_attention_bench
if [ ! -x "$bench" ]; then
  echo "attention_ncu.sh: no $bench (scripts/gpu_check.sh builds and bundles it)" >&2
  exit 2
fi
lib=$bundle/lib
[ "${bundle#/}" != "$bundle" ] || lib=$PWD/$lib
export LD_LIBRARY_PATH="$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
if ! "$bench" --list --variants fused --once >/dev/null 2>&1; then
  echo "attention_ncu.sh: $bench has no --variants or --once (an older build:" \
    "rebuild the bundle with scripts/gpu_check.sh)" >&2
  exit 2
fi
raw=$(mktemp -d)
mkdir -p "$out/ncu"

python3 tools/bench/attention_table.py misses --data "$data" >"$raw/all.txt" || exit 2
if ! grep -E "${ONLY:-.}" "$raw/all.txt" >"$raw/misses.txt"; then
  echo "attention_ncu.sh: no missed point in $data${ONLY:+ matching $ONLY}"
  exit 2
fi
count=$(wc -l <"$raw/misses.txt")
version=$("$ncu" --version | tail -1)
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
[ -n "$gpu" ] || gpu="unknown GPU"
echo "== $count missed points of $data; $ncu ($version) on $gpu"

# ncu's arguments (attention_ncu.py flags: the one list of them).
mapfile -t full < <(python3 tools/bench/attention_ncu.py flags)
mapfile -t known < <(python3 tools/bench/attention_ncu.py flags --known)
flags=("${full[@]}")
settled=""  # set once a point has been read with $flags

# measure POINT [retry]: ncu on the point's fused launch with $flags, a
# progress line; the point's record goes to records.jsonl unless it failed
# and "retry" says another try follows. Fails without a reading. With PEER
# set, the launch of that peer's kernel instead (attention_peers.py).
measure() {
  local dtype b h n d causal tag left limit rc program peer_flag=()
  read -r dtype b h n d causal <<<"$1"
  tag="${dtype}_${b}_${h}_${n}_${d}_${causal}${PEER:+_$PEER}"
  left=$((deadline - SECONDS))
  limit=$((left < point_timeout ? left : point_timeout))
  if [ -n "${PEER:-}" ]; then
    peer_flag=(--peer "$PEER")
    program=(python3 tools/bench/attention_peers.py --shapes "$b,$h,$n,$d"
      --dtypes "$dtype" --causal "$causal" --variants "$PEER" --once)
  else
    program=("$bench" --shape "$b,$h,$n,$d" --dtypes "$dtype" --causal "$causal"
      --variants fused --once)
  fi
  timeout -k 10 "$((limit > 1 ? limit : 1))" "$ncu" "${flags[@]}" -k \
    "$(python3 tools/bench/attention_ncu.py kernels "${peer_flag[@]}")" \
    "${program[@]}" </dev/null >"$raw/$tag.out" 2>"$raw/$tag.err"
  rc=$?
  grep '^"' "$raw/$tag.out" >"$out/ncu/$tag.csv"
  { grep -v '^"' "$raw/$tag.out"; cat "$raw/$tag.err"; } >"$out/ncu/$tag.log"
  python3 tools/bench/attention_ncu.py parse --point "$1" "${peer_flag[@]}" \
    --status "$rc" "$out/ncu/$tag.csv" "$out/ncu/$tag.log" >"$raw/record.json" \
    2>"$raw/summary.txt"
  rc=$?
  echo "[$done_points/$count] $1${PEER:+ $PEER}: $(cat "$raw/summary.txt") ($SECONDS s)"
  if [ "$rc" -ne 0 ] && [ "${2:-}" = retry ]; then
    mv "$out/ncu/$tag.log" "$out/ncu/$tag.first-try.log"
    return 1
  fi
  cat "$raw/record.json" >>"$raw/records.jsonl"
  return "$rc"
}

# Until a point is read, a failed point is tried again with the known-good
# metrics, which are kept if that reads it.
status=0
done_points=0
while read -r point; do
  if [ "$SECONDS" -ge "$deadline" ]; then
    echo "out of time (DEADLINE_S=$deadline): $((count - done_points)) points left out"
    status=1
    break
  fi
  done_points=$((done_points + 1))
  if [ -n "$settled" ]; then
    measure "$point" || status=1
  elif measure "$point" retry; then
    settled=1
  else
    echo "   again with the metrics known to work"
    flags=("${known[@]}")
    if measure "$point"; then
      settled=1
    else
      flags=("${full[@]}")
      status=1
    fi
  fi
done <"$raw/misses.txt"

# The peers' kernels, with the flags that read the fused kernel.
fused_count=$count
peer_count=0
if [ "${PEERS:-1}" != 0 ]; then
  python3 tools/bench/attention_table.py misses --peers --data "$data" |
    grep -E "${ONLY:-.}" >"$raw/peer_misses.txt"
  peer_count=$(wc -l <"$raw/peer_misses.txt")
  [ "$peer_count" -gt 0 ] && echo "== the kernels of the peers whose goals they miss"
  done_points=0
  count=$peer_count
  while read -r dtype b h n d causal peer; do
    if [ "$SECONDS" -ge "$deadline" ]; then
      echo "out of time (DEADLINE_S=$deadline): $((count - done_points)) peers' kernels left out"
      status=1
      break
    fi
    done_points=$((done_points + 1))
    PEER=$peer measure "$dtype $b $h $n $d $causal" || status=1
  done <"$raw/peer_misses.txt"
fi

command="tools/bench/attention_ncu.sh $bundle $data"
for var in ONLY PEERS DEADLINE_S POINT_TIMEOUT_S; do
  [ -n "${!var+set}" ] && command="$var=\"${!var}\" $command"
done
touch "$raw/records.jsonl"
python3 tools/bench/attention_ncu.py pack --command "$command" --gpu "$gpu" \
  --ncu "$version" --data "$out/attention_ncu.json" "$raw/records.jsonl" || status=1
read_points=$(grep -v '"error"' "$raw/records.jsonl" | grep -vc '"peer"')
read_peers=$(grep -v '"error"' "$raw/records.jsonl" | grep -c '"peer"')
echo "== done: $read_points of $fused_count points read, and $read_peers of" \
  "$peer_count peers' kernels, status $status ($SECONDS s);" \
  "copy $out/attention_ncu.json to docs/perf/data/ and run tools/bench/make_perf_docs.sh"
rm -rf "$raw"
exit $status
