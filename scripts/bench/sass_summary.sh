#!/usr/bin/env bash
# Per kernel of a CUDA binary: its HMMA (tensor-core), FFMA, LDSM (ldmatrix)
# and LDL/STL (local memory: spills) instruction counts, from cuobjdump's SASS.
#   scripts/bench/sass_summary.sh BINARY [NAME_FILTER]
set -uo pipefail
cuobjdump --dump-sass "$1" | awk -v filt="${2:-Attention|Fused|Softmax}" '
  /Function :/ { if (name != "" && name ~ filt) printf "%-90s HMMA %5d FFMA %6d LDSM %4d LDL %3d STL %3d\n", name, h, f, l, ll, sl;
                 name = $3; h = f = l = ll = sl = 0; next }
  /HMMA/ { h++ } /FFMA/ { f++ } /LDSM/ { l++ } /LDL/ { ll++ } /STL/ { sl++ }
  END { if (name != "" && name ~ filt) printf "%-90s HMMA %5d FFMA %6d LDSM %4d LDL %3d STL %3d\n", name, h, f, l, ll, sl }'
