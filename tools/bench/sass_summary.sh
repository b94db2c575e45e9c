#!/usr/bin/env bash
# Per kernel of a CUDA binary: its HGMMA (wgmma), HMMA (mma.sync), UTMALDG
# (TMA loads), FFMA, LDSM (ldmatrix) and LDL/STL (local memory: spills) instruction counts, from cuobjdump's SASS.
#   tools/bench/sass_summary.sh BINARY [NAME_FILTER]
set -uo pipefail
cuobjdump --dump-sass "$1" | awk -v filt="${2:-Attention|Fused|Softmax}" '
  /Function :/ { if (name != "" && name ~ filt) printf "%-90s HGMMA %4d HMMA %5d UTMALDG %3d FFMA %6d LDSM %4d LDL %3d STL %3d\n", name, hg, h, tma, f, l, ll, sl;
                 name = $3; hg = h = tma = f = l = ll = sl = 0; next }
  /HGMMA/ { hg++ } /[^G]HMMA/ { h++ } /UTMALDG/ { tma++ } /FFMA/ { f++ } /LDSM/ { l++ } /LDL/ { ll++ } /STL/ { sl++ }
  END { if (name != "" && name ~ filt) printf "%-90s HGMMA %4d HMMA %5d UTMALDG %3d FFMA %6d LDSM %4d LDL %3d STL %3d\n", name, hg, h, tma, f, l, ll, sl }'
