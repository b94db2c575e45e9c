#!/usr/bin/env bash
# The vectorized vector add kernels as nvcc compiles them to PTX (no GPU
# needed): fails when any of them divides (div. or rem.), or when there are
# fewer kernels than the launcher instantiates. An unrolled grid-stride loop
# divides for its trip count before the first load, which cost 0.2-0.3 us
# a call at n = 2^18 to 2^21 on an H100, 5-13% of the call
# (kernels/cuda/vector_add/vector_add_vectorized.cu).
#   vector_add_ptx_check.sh NVCC REPO_ROOT [SOURCE EXPECTED]
# SOURCE defaults to kernels/cuda/vector_add/vector_add_vectorized.cu, whose
# kernels (VectorAddVectorized*Kernel) are EXPECTED of them: covering and
# striding grids x (float2 plain or streaming, float4 plain). Another file shows that the check fails where it
# should.
set -uo pipefail
nvcc=$1
root=$2
source=${3:-$root/kernels/cuda/vector_add/vector_add_vectorized.cu}
expected_kernels=${4:-6}
ptx=$(mktemp)
trap 'rm -f "$ptx"' EXIT
out=$("$nvcc" -std=c++17 -O3 -I"$root" -arch=sm_90 -ptx "$source" -o "$ptx" 2>&1) ||
  { echo "$out"; exit 1; }
# Each kernel's body: from its .entry line to the closing brace.
report=$(awk '/^\.(visible )?\.?entry .*VectorAddVectorized[A-Za-z]*Kernel/ { name = $0; inside = 1; kernels++ }
  inside && /^[ \t]*(div|rem)\./ { print "divides: " $0 " in " name }
  inside && /^}/ { inside = 0 }
  END { print "kernels: " kernels + 0 }' "$ptx")
kernels=$(sed -n 's/^kernels: //p' <<<"$report")
status=0
if [ "$kernels" -ne "$expected_kernels" ]; then
  echo "nvcc compiled $kernels VectorAddVectorized*Kernel kernels, expected $expected_kernels"
  status=1
fi
if grep "^divides: " <<<"$report"; then
  status=1
fi
[ $status -eq 0 ] && echo "ok: $kernels kernels; none divides"
exit $status
