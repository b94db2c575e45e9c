// The Hopper fused attention kernel for fp8 inputs (attention_fused_fp8.cu):
// FlashAttention-3's FP8 forward pass, Q K^T and P V by FP8 wgmma (E4M3,
// fp32 accumulation), P rounded to E4M3, O written in bf16
// (AttentionOutputDType), the inputs' per-tensor scale kFp8InputScale
// (kernels/dtype.h). LaunchAttentionFused (attention.h) runs it for fp8;
// the server and tests call that.
//
// FP8 wgmma reads both operands K-major, and V's rows are keys, the
// contracted dim of P V: so a pass before the kernel writes V transposed,
// V^T, into the workspace (FlashAttention-3 transposes each tile in shared
// memory instead). That pass also orders the keys of each 32 as
// Fp8VtKey says, so that S's fp32 accumulators, rounded to E4M3 four at a
// time, are P's A operand as they lie (FlashAttention-3 permutes registers
// for it, permute_Cregs_fp8). The pass is part of every launch, so its
// time is in every figure.
//
// Tiles: 128 query rows a block (two consumer warpgroups of 64, in
// ping-pong, and a producer warpgroup issuing the copy engine), key tiles of
// 224 (FlashAttention-3's for fp8 at d <= 128: the per-tile work of the
// softmax, the rescale of O and the barriers spread over more keys), head
// dims padded to 128 (the copy engine fills columns past d with zeros); one
// block per query block, heaviest first when causal; no key split.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels/attention/attention_shape.h"
#include "kernels/cuda/attention/attention.h"

namespace kbench::kernels::cuda {

// Keys of one K/V tile, and query rows of one block.
inline constexpr int kFp8KvTile = 224;
inline constexpr int kFp8QueryRows = 128;

// V^T in the workspace: [batch * heads][atoms][head_dim][128] bytes, two
// atoms a key tile (the copy engine's 128-byte rows): key j (< 224) of tile
// t at atom 2 t + j / 128, byte j % 128, each 32 keys in Fp8VtKey's order;
// bytes 96..127 of a tile's second atom are never read.
inline constexpr int kFp8VtAtomKeys = 128;
inline constexpr int kFp8VtAtomsPerTile = 2;

// The key that position p (0..31) of a group of 32 in V^T holds. Thread q
// (0..3) of a quad holds, in S's accumulators of one row, the keys 2 q,
// 2 q + 1, 2 q + 8, 2 q + 9 of each 16 (the fp32 accumulator layout of
// wgmma, hopper_ptx.cuh); as P's A operand (k32) its register of that row
// holds positions 4 q..4 q + 3 of each 16. So position 4 q + j of each 16
// holds key 2 q + j for j < 2, 2 q + 8 + (j - 2) for j >= 2.
__host__ __device__ constexpr int Fp8VtKey(int p) {
  const int half = p & 16, q = (p & 15) / 4, j = p & 3;
  return half + (j < 2 ? 2 * q + j : 2 * q + 8 + (j - 2));
}

// The workspace fp8 fused needs: V^T as laid out above, for every key tile
// of the sequence, 256-byte aligned.
int64_t Fp8FusedWorkspaceBytes(const AttentionShape& shape);

// The kernel on `shape`, tensors.workspace holding Fp8FusedWorkspaceBytes.
// cudaErrorInvalidValue for a head dim outside kFusedCudaFp8HeadDims
// (kernels/attention/attention_head_dims.h), a missing workspace, or a grid
// that does not fit; cudaErrorNotSupported on a device it does not run on
// or a driver without the tensor-map encoder.
cudaError_t LaunchAttentionFusedFp8(const AttentionShape& shape, const AttentionTensors& tensors,
                                    cudaStream_t stream);

}  // namespace kbench::kernels::cuda
