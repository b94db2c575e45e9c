#!/usr/bin/env bash
# The Hopper attention kernel as ptxas compiles it (no GPU needed): fails
# when ptxas reports any "Potential Performance Loss": serialised wgmma
# instructions (C7514: an instruction reads a wgmma's accumulators while
# the wgmma may be in flight, which cost 25% at d = 128 on the H200; C7515:
# an instruction writes them; C7511: too few registers for the pipeline;
# C7517: ptxas adds a wait of its own; C7520: it inserts a warpgroup
# arrive on a divergent path) or an ignored setmaxnreg (C7508); or when it
# spills registers, or compiles fewer kernels than the launcher
# instantiates.
#   wgmma_ptxas_check.sh NVCC REPO_ROOT [SOURCE KERNEL EXPECTED]
# SOURCE defaults to kernels/cuda/attention/attention_fused_wgmma.cu, whose
# kernels (KERNEL) are FusedWgmmaKernel, EXPECTED of them: fp16, bf16 x
# (d 64 (1, 2 or 3 consumers), 96, 128, 256 x causal or not, d 96 and 128
# non-causal with 176-key tiles) x persistent or not, and the persistent
# kernels with items overlapped (kCrossItem: d 64 with 2 consumers, d 96
# and 128 with 128-key tiles, causal or not). The fp8 kernel (attention_fused_fp8.cu,
# FusedFp8Kernel) is checked the same way; another file shows that the
# check fails where it should.
set -uo pipefail
nvcc=$1
root=$2
source=${3:-$root/kernels/cuda/attention/attention_fused_wgmma.cu}
kernel=${4:-FusedWgmmaKernel}
expected_kernels=${5:-68}
out=$("$nvcc" -std=c++17 -O3 -I"$root" -gencode=arch=compute_90a,code=sm_90a \
  -Xptxas -v -c "$source" -o /dev/null 2>&1) || { echo "$out"; exit 1; }
kernels=$(grep -c "Compiling entry function '.*$kernel" <<<"$out")
status=0
if [ "$kernels" -ne "$expected_kernels" ]; then
  echo "ptxas compiled $kernels $kernel kernels, expected $expected_kernels"
  status=1
fi
if grep -E "Potential Performance Loss|C7508| [1-9][0-9]* bytes spill" <<<"$out"; then
  status=1
fi
[ $status -eq 0 ] && echo "ok: $kernels kernels; no serialised wgmma, ignored setmaxnreg or spill"
exit $status
