// The fused attention kernels behind LaunchAttentionFused (attention.h), with
// their tile configurations exposed for the benchmark that chooses among
// them. The server and tests call LaunchAttentionFused.
#pragma once

#include <cuda_runtime_api.h>

#include "kernels/attention_shape.h"
#include "kernels/cuda/attention.h"
#include "kernels/dtype.h"

namespace kbench::kernels::cuda {

// fp16/bf16 tensor-core kernel (attention_fused_mma.cu); every configuration
// has 128 query rows a block. The configurations below are those of d = 64
// and 128; at d = 256 every configuration runs 8 warps of 16 rows with K and
// V tiles of 64 rows, and a padded head_dim (not 64, 128 or 256) runs the
// default configuration's tiling of the next of those.
enum class MmaConfig {
  // 4 warps of 32 query rows (FlashAttention-2's forward shape): K and V
  // tiles of 64 rows for d = 128, 128 rows for d = 64.
  kWarps4Rows32,
  // 8 warps of 16 query rows, K and V tiles of 64 rows.
  kWarps8Rows16,
  // 4 warps of 32 query rows with half the K and V tile of kWarps4Rows32
  // (32 rows for d = 128, 64 for d = 64): fewer registers.
  kWarps4Rows32Narrow,
};
inline constexpr MmaConfig kDefaultMmaConfig = MmaConfig::kWarps4Rows32;

// `splits` key splits (1: none; more: tensors.workspace holds
// SplitKvWorkspaceBytes(shape, splits), kernels/cuda/attention_split_kv.h).
cudaError_t LaunchAttentionFusedMma(const AttentionShape& shape, DType dtype,
                                    const AttentionTensors& tensors,
                                    MmaConfig config, int splits,
                                    cudaStream_t stream);
// Key rows of one K/V tile of `config` at head_dim.
int MmaKvTile(MmaConfig config, int64_t head_dim);

// fp32 CUDA-core kernel (attention_fused_fp32.cu).
enum class Fp32Config {
  // 128 query rows a block, P in its own shared buffer: one block an SM.
  kRows128,
  // 64 query rows a block, P written over the K tile: two blocks an SM.
  kRows64Aliased,
};
inline constexpr Fp32Config kDefaultFp32Config = Fp32Config::kRows128;

// `splits` as for LaunchAttentionFusedMma.
cudaError_t LaunchAttentionFusedFp32(const AttentionShape& shape,
                                     const AttentionTensors& tensors,
                                     Fp32Config config, int splits,
                                     cudaStream_t stream);
// Key rows of one K/V tile of the fp32 kernel (every configuration).
int Fp32KvTile();

}  // namespace kbench::kernels::cuda
