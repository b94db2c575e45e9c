// Attention on a CUDA device as a specification. The kernels alone
// (kernels/cuda/attention/attention.h): every variant x dtype x causal x head_dim
// matches the double reference (kernels/attention/reference.h) within the variant
// tolerance of kernels/attention/tolerances.h, on shapes whose N is not a multiple of
// any tile, with batch * heads above the H200's 132 SMs, and long rows that
// take the softmax's streaming path, and fp32 inputs far outside fp16's range
// (each tensor scaled by a power of two); every element of the output is written
// (it is poisoned with NaN before each run); unsupported head dims are
// refused (fused runs every multiple of 8 from 32 to 256: 64, 128 and 256,
// 96 on Hopper, and dims padded up to them are checked); split-KV
// (kernels/cuda/attention/attention_split_kv.h): the rule's splits on the H200's 132 SMs (host
// only), the auto plan on low-parallelism shapes (B = H = 1, N = 3000; B = 1, H = 4, N = 4096
// causal) and forced splits up to kMaxKvSplits, past the key tiles (empty splits). fused runs the
// wgmma kernel on a Hopper device (checked), so the mma.sync kernel has cases of its own, and the
// wgmma kernel's ping-pong config runs the shapes that reuse every pipeline slot, as do its one and
// three consumers (d = 64) and its 176-key tiles (d = 96 and 128), each persistent too, its
// persistent consumers overlapping items (kCrossItem), and its balanced tail (items cut into up to
// three pieces, the counters zero after each launch; its rule host only). Then through the CUDA
// backend (server/worker/backends/attention/cuda_attention.cc) and the registry's attention op:
// what the backend offers and what admission refuses (host only), refusals with the right codes,
// the device reference against the double reference, the device's comparison against the host's,
// both variants checked and timed cold and hot (a CUDA graph around cuBLAS and the kernels), and
// RunJob verifying every variant x dtype x causal x head_dim, and a split-KV shape. Skipped, with
// the reason, where no CUDA device is present, except the host-only tests.
#include <cuda_runtime_api.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <ostream>
#include <span>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "kernels/attention/attention_shape.h"
#include "kernels/attention/reference.h"
#include "kernels/attention/tolerances.h"
#include "kernels/common/status_macros.h"
#include "kernels/cuda/attention/attention.h"
#include "kernels/cuda/attention/attention_fp32_range.h"
#include "kernels/cuda/attention/attention_fused_fp8.h"
#include "kernels/cuda/attention/attention_fused_mma.h"
#include "kernels/cuda/attention/attention_fused_wgmma.h"
#include "kernels/cuda/attention/attention_split_kv.h"
#include "kernels/cuda/seeded_fill.h"
#include "kernels/cuda_runtime/cublas_handle.h"
#include "kernels/cuda_runtime/cuda_status.h"
#include "kernels/cuda_runtime/device_buffer.h"
#include "kernels/cuda_runtime/stream.h"
#include "kernels/dtype.h"
#include "kernels/seeded_input.h"
#include "kernels/verify.h"
#include "proto/ops/attention/attention_op.h"
#include "proto/ops/registry.h"
#include "server/worker/backends/cuda/cuda_device.h"
#include "server/worker/runner.h"
#include "tests/cuda_device_test.h"
#include "tests/gpu_wgmma_fp8_probe.h"
#include "tests/recording_sink.h"

namespace kbench::kernels::cuda {
namespace {

using ::kbench::kernels::cuda_runtime::CublasHandle;
using ::kbench::kernels::cuda_runtime::DeviceBuffer;
using ::kbench::kernels::cuda_runtime::Stream;

constexpr uint64_t kSeed = 20261130;
// Rows checked against the reference: all of them up to 2048, else a sample
// whose reference costs about 2^28 multiply-adds (at least 64 rows).
int64_t CheckedRows(const AttentionShape& shape) {
  const int64_t budget = (int64_t(1) << 28) / (shape.seq_len * shape.head_dim);
  return std::clamp<int64_t>(budget, 64, 2048);
}

// The output of `dtype` on the device, copied to the host as float.
absl::StatusOr<std::vector<float>> ToHost(const DeviceBuffer& buffer, DType dtype,
                                          const Stream& stream) {
  const size_t n = buffer.bytes() / size_t(DTypeBytes(dtype));
  std::vector<float> out(n);
  std::vector<uint16_t> bits(dtype == DType::kFp32 ? 0 : n);
  void* host =
      dtype == DType::kFp32 ? static_cast<void*>(out.data()) : static_cast<void*>(bits.data());
  KBENCH_CUDA_RETURN_IF_ERROR(
      cudaMemcpyAsync(host, buffer.get(), buffer.bytes(), cudaMemcpyDeviceToHost, stream.get()));
  KBENCH_RETURN_IF_ERROR(stream.Synchronize());
  if (dtype != DType::kFp32)
    for (size_t i = 0; i < n; ++i)
      out[i] = dtype == DType::kFp16 ? HalfBitsToFloat(bits[i]) : Bf16BitsToFloat(bits[i]);
  return out;
}

AttentionShape Shape(int64_t b, int64_t h, int64_t n, int64_t d, bool causal) {
  AttentionShape s;
  s.batch = b;
  s.heads = h;
  s.seq_len = n;
  s.head_dim = d;
  s.causal = causal;
  return s;
}

TEST(CudaAttention, FusedRefusesHeadDimsItDoesNotRun) {
  // Host-side checks: no device needed.
  // Every multiple of 8 from 32 to 256.
  for (int64_t d : {32, 40, 64, 96, 128, 136, 200, 256})
    EXPECT_TRUE(FusedAttentionSupports(d)) << d;
  for (int64_t d : {0, 8, 24, 100, 127, 264, 512}) EXPECT_FALSE(FusedAttentionSupports(d)) << d;
  const AttentionTensors none;
  for (DType dtype : {DType::kFp32, DType::kFp16, DType::kBf16})
    for (int64_t d : {100, 264})
      EXPECT_EQ(LaunchAttentionFused(Shape(1, 1, 64, d, false), dtype, none, FusedAttentionPlan{},
                                     nullptr),
                cudaErrorInvalidValue);
}

// A kernel for the rule's own tests: query blocks of `rows`, key tiles of
// `tile`, one block an SM, the given costs.
SplitKvKernel Grid(int rows, int tile, int item_keys = 0, int combine_keys = 0) {
  return {rows, tile, /*blocks_per_sm=*/1, item_keys, combine_keys};
}

TEST(CudaAttentionSplitKv, RulePicksTheSplitWhoseModelledGridEndsFirst) {
  // Host only. One query block of 64 tiles of 128 keys on 4 SMs, no fixed
  // costs: 4 splits end after 16 tiles; 3 after 22, 5 after 2 rounds of 13,
  // 8 after 2 rounds of 8 (a tie, and ties go to fewer splits).
  EXPECT_EQ(SplitKvSplits(Shape(1, 1, 8192, 64, false), Grid(8192, 128), 4), 4);
  // On 2 SMs with an item's fixed cost of 4096 keys: one pass 8192 + 4096,
  // 2 splits 4096 + 4096, 4 splits two rounds of 2048 + 4096: 2.
  EXPECT_EQ(SplitKvSplits(Shape(1, 1, 8192, 64, false), Grid(8192, 128, 4096), 2), 2);
  // A combine dearer than any gain: one pass.
  EXPECT_EQ(SplitKvSplits(Shape(1, 1, 8192, 64, false), Grid(8192, 128, 0, 1 << 20), 4), 1);
  // Causal: 4 query blocks of 1 to 4 tiles on 4 SMs. One pass ends with
  // the longest, after 4 tiles; 2 splits (items 2 2 2 1 1 1 1 1) after 3;
  // 3 and 4 splits after 3 too: 2.
  EXPECT_EQ(SplitKvSplits(Shape(1, 1, 512, 64, true), Grid(128, 128), 4), 2);
  // More query blocks than kSplitKvRounds rounds of the SMs: one pass.
  EXPECT_EQ(SplitKvSplits(Shape(1, 17, 128, 64, false), Grid(128, 1), 4), 1);
  // Items of at most kSplitKvRounds rounds: 5 blocks of 100 tiles on 4
  // SMs take 3 splits (15 items, 4 rounds of 34 tiles or fewer), not 4
  // (20 items, 5 rounds of 25: shorter, but past the bound).
  EXPECT_EQ(SplitKvSplits(Shape(1, 5, 100, 64, false), Grid(100, 1), 4), 3);
  // Capped by kMaxKvSplits: one block of 128 tiles, 132 SMs: 64 splits of
  // 2 tiles (43 to 63 take 3).
  EXPECT_EQ(SplitKvSplits(Shape(1, 1, 128, 64, false), Grid(128, 1), 132), kMaxKvSplits);
  // Capped by the key tiles: 2 tiles, 2 splits at most.
  EXPECT_EQ(SplitKvSplits(Shape(1, 1, 256, 64, false), Grid(256, 128), 132), 2);
  // One tile: nothing to split.
  EXPECT_EQ(PlanAttentionFused(Shape(1, 1, 1, 64, false), DType::kBf16, 132).splits, 1);
}

// The wgmma kernel's splits of `shape` on the H200's 132 SMs (host only:
// PlanAttentionFused picks the kernel the device runs).
int WgmmaSplits(const AttentionShape& shape) {
  return SplitKvSplits(shape, WgmmaSplitKvKernel(shape, 132), 132);
}

TEST(CudaAttentionSplitKv, RuleSplitsTheLowParallelismShapes) {
  // Host only, on the H200's 132 SMs, at the shapes of the sweep the costs
  // were fitted to (docs/perf/data/attention_splits.json), where these were
  // the fastest splits measured. B = H = 1, N = 3000, d = 128: 24 query
  // blocks of 24 key tiles; 5 splits, one round of 120 items.
  EXPECT_EQ(WgmmaSplits(Shape(1, 1, 3000, 128, false)), 5);
  EXPECT_EQ(WgmmaSplits(Shape(1, 1, 3000, 128, true)), 6);
  // B = 1, H = 4, N = 4096: 128 query blocks fill 128 of 132 SMs: one
  // pass; causal, 2 splits (fp32, two blocks an SM: 4).
  EXPECT_EQ(WgmmaSplits(Shape(1, 4, 4096, 128, false)), 1);
  EXPECT_EQ(WgmmaSplits(Shape(1, 4, 4096, 128, true)), 2);
  EXPECT_EQ(PlanAttentionFused(Shape(1, 4, 4096, 128, true), DType::kFp32, 132).splits, 4);
  // B = 2, H = 4, N = 1000, d = 64: 128 query blocks of one consumer (64
  // rows) and 8 tiles; no split pays for its items' starts and the
  // combine. B = 1, H = 1, N = 4000, d = 64: two consumers, 32 query
  // blocks, 4 splits.
  EXPECT_EQ(WgmmaSplits(Shape(2, 4, 1000, 64, false)), 1);
  EXPECT_EQ(WgmmaSplits(Shape(1, 1, 4000, 64, false)), 4);
  // B = H = 1, N = 8192, d = 256 (key tiles of 80): 2 splits, one round of
  // 128 items (5 would take 3 rounds); causal 4.
  EXPECT_EQ(WgmmaSplits(Shape(1, 1, 8192, 256, false)), 2);
  EXPECT_EQ(WgmmaSplits(Shape(1, 1, 8192, 256, true)), 4);
  // The plan: its splits, workspace and description (fp32: the 3xFP16
  // kernel on every device, its range words after the partials).
  FusedAttentionPlan plan = PlanAttentionFused(Shape(1, 1, 8192, 256, false), DType::kFp32, 132);
  EXPECT_EQ(plan.splits, 2);
  EXPECT_EQ(plan.workspace_bytes,
            FusedWorkspaceBytes(Shape(1, 1, 8192, 256, false), DType::kFp32, 2));
  EXPECT_EQ(plan.workspace_bytes, int64_t(2) * 8192 * 257 * 4 + kFp32RangeBytes);
  EXPECT_NE(plan.description.find("split-KV x2"), std::string::npos) << plan.description;
  EXPECT_NE(plan.description.find("inputs scaled by powers of two"), std::string::npos)
      << plan.description;
  // 1024 query blocks fill the SMs: one pass, no workspace (fp32: the
  // range words only).
  plan = PlanAttentionFused(Shape(4, 8, 4096, 64, false), DType::kFp16, 132);
  EXPECT_EQ(plan.splits, 1);
  EXPECT_EQ(plan.workspace_bytes, 0);
  EXPECT_NE(plan.description.find("one pass"), std::string::npos) << plan.description;
  plan = PlanAttentionFused(Shape(4, 8, 4096, 64, false), DType::kFp32, 132);
  EXPECT_EQ(plan.splits, 1);
  EXPECT_EQ(plan.workspace_bytes, kFp32RangeBytes);
}

TEST(CudaAttentionSplitKv, RefusesSplitsWithoutWorkspaceOrPastTheCap) {
  // Host only: refused before any launch.
  const AttentionTensors none;
  const AttentionShape shape = Shape(1, 1, 1000, 128, false);
  FusedAttentionPlan plan;
  plan.splits = 4;
  for (DType dtype : {DType::kFp32, DType::kFp16})
    EXPECT_EQ(LaunchAttentionFused(shape, dtype, none, plan, nullptr), cudaErrorInvalidValue);
  EXPECT_EQ(LaunchAttentionFusedMma(shape, DType::kFp16, none, kDefaultMmaConfig, kMaxKvSplits + 1,
                                    nullptr),
            cudaErrorInvalidValue);
  EXPECT_EQ(LaunchAttentionFusedFp32(shape, none, Fp32ConfigFor(shape), 0, nullptr),
            cudaErrorInvalidValue);
  // fp32 unsplit still needs its range words, and a bound on its inputs is
  // positive and finite, or 0 (none).
  EXPECT_EQ(LaunchAttentionFusedFp32(shape, none, Fp32ConfigFor(shape), 1, nullptr),
            cudaErrorInvalidValue);
  AttentionTensors bad;
  bad.workspace = &bad;  // (never reached: refused first)
  for (float bound : {-1.0f, INFINITY, NAN}) {
    bad.input_bound = bound;
    EXPECT_EQ(LaunchAttentionFusedFp32(shape, bad, Fp32ConfigFor(shape), 1, nullptr),
              cudaErrorInvalidValue)
        << bound;
  }
}

TEST(CudaAttentionWgmma, Rules) {
  // Host only. Three consumers (192 rows) only at d = 64, non-causal N >=
  // 2048 or N <= 512, causal N >= 8192, and at least 4 waves of them.
  EXPECT_EQ(WgmmaConsumers(Shape(1, 32, 16384, 64, false), 132), 3);
  EXPECT_EQ(WgmmaConsumers(Shape(8, 32, 2048, 64, false), 132), 3);
  EXPECT_EQ(WgmmaConsumers(Shape(16, 32, 1024, 64, false), 132), 2);
  EXPECT_EQ(WgmmaConsumers(Shape(32, 32, 512, 64, false), 132), 3);
  EXPECT_EQ(WgmmaConsumers(Shape(32, 32, 512, 64, true), 132), 2);
  EXPECT_EQ(WgmmaConsumers(Shape(16, 32, 1024, 64, true), 132), 2);
  EXPECT_EQ(WgmmaConsumers(Shape(2, 32, 8192, 64, true), 132), 3);
  EXPECT_EQ(WgmmaConsumers(Shape(8, 32, 2048, 64, true), 132), 2);
  EXPECT_EQ(WgmmaConsumers(Shape(4, 32, 4096, 64, true), 132), 2);
  // One consumer (64 rows) at N <= 1024 where 128-row blocks fill at most
  // half the SMs and 64-row ones more than half: 64 blocks of 128 rows,
  // 128 of 64 (d 48 padded to 64), and the split-KV rule leaves them
  // whole. Two where 64-row blocks fill at most half (64 of them, N 1000;
  // 16), at N > 1024 (128 blocks of 64 rows of N 2000), where 128-row
  // blocks fill more than half (128 of them), and at d = 128.
  EXPECT_EQ(WgmmaConsumers(Shape(2, 4, 1000, 64, false), 132), 1);
  EXPECT_EQ(WgmmaConsumers(Shape(2, 4, 1000, 64, true), 132), 1);
  EXPECT_EQ(WgmmaConsumers(Shape(2, 4, 1000, 48, false), 132), 1);
  EXPECT_EQ(WgmmaConsumers(Shape(1, 8, 1000, 64, true), 132), 1);
  EXPECT_EQ(WgmmaQueryRows(Shape(2, 4, 1000, 64, false), 132), 64);
  for (bool causal : {false, true})
    EXPECT_EQ(WgmmaSplits(Shape(2, 4, 1000, 64, causal)), 1) << causal;
  EXPECT_EQ(WgmmaConsumers(Shape(1, 4, 1000, 64, false), 132), 2);
  EXPECT_EQ(WgmmaConsumers(Shape(1, 1, 1000, 64, true), 132), 2);
  EXPECT_EQ(WgmmaConsumers(Shape(2, 2, 2000, 64, false), 132), 2);
  EXPECT_EQ(WgmmaConsumers(Shape(4, 4, 1000, 64, false), 132), 2);
  EXPECT_EQ(WgmmaConsumers(Shape(2, 4, 1000, 128, false), 132), 2);
  // The test shapes of three consumers (at least 528 blocks of 192, 4
  // waves).
  EXPECT_EQ(WgmmaConsumers(Shape(1, 48, 2100, 64, false), 132), 3);
  EXPECT_EQ(WgmmaConsumers(Shape(1, 49, 2100, 64, false), 132), 3);
  EXPECT_EQ(WgmmaConsumers(Shape(1, 18, 8200, 64, true), 132), 3);
  EXPECT_EQ(WgmmaConsumers(Shape(1, 13, 8200, 64, true), 132), 3);
  EXPECT_EQ(WgmmaConsumers(Shape(1, 48, 2100, 64, true), 132), 2);
  EXPECT_EQ(WgmmaConsumers(Shape(1, 176, 500, 48, false), 132), 3);
  EXPECT_EQ(WgmmaConsumers(Shape(1, 176, 500, 48, true), 132), 2);
  EXPECT_EQ(WgmmaConsumers(Shape(1, 8, 8192, 64, false), 132), 2);    // 344 blocks
  EXPECT_EQ(WgmmaConsumers(Shape(1, 32, 16384, 48, false), 132), 3);  // padded to 64
  EXPECT_EQ(WgmmaConsumers(Shape(1, 32, 16384, 128, false), 132), 2);
  EXPECT_EQ(WgmmaQueryRows(Shape(1, 32, 16384, 64, false), 132), 192);
  EXPECT_EQ(WgmmaQueryRows(Shape(1, 1, 1000, 256, true), 132), 128);
  // The tiled head dims: 64, 96, 128, 256; one between is padded up.
  EXPECT_EQ(WgmmaHeadDim(32), 64);
  EXPECT_EQ(WgmmaHeadDim(64), 64);
  EXPECT_EQ(WgmmaHeadDim(72), 96);
  EXPECT_EQ(WgmmaHeadDim(96), 96);
  EXPECT_EQ(WgmmaHeadDim(104), 128);
  EXPECT_EQ(WgmmaHeadDim(136), 256);
  // Key tiles of 176 only at d = 96 and 128 (padded too), non-causal,
  // N >= 2048.
  EXPECT_EQ(WgmmaKvTile(Shape(4, 16, 4096, 128, false)), 176);
  EXPECT_EQ(WgmmaKvTile(Shape(2, 20, 2048, 96, false)), 176);
  EXPECT_EQ(WgmmaKvTile(Shape(2, 20, 2048, 96, true)), 128);
  EXPECT_EQ(WgmmaKvTile(Shape(1, 66, 2100, 120, false)), 176);
  EXPECT_EQ(WgmmaKvTile(Shape(2, 2, 2049, 128, false)), 176);
  EXPECT_EQ(WgmmaKvTile(Shape(4, 16, 4096, 128, true)), 128);
  EXPECT_EQ(WgmmaKvTile(Shape(16, 16, 1024, 128, false)), 128);
  EXPECT_EQ(WgmmaKvTile(Shape(4, 16, 4096, 64, false)), 128);
  EXPECT_EQ(WgmmaKvTile(Shape(4, 16, 4096, 256, false)), 80);
  // Free consumers where an item is a few key tiles, ping-pong past that.
  EXPECT_EQ(WgmmaConfigFor(Shape(32, 32, 512, 64, false)), WgmmaConfig::kFree);
  EXPECT_EQ(WgmmaConfigFor(Shape(32, 32, 512, 64, true)), WgmmaConfig::kPingPong);
  EXPECT_EQ(WgmmaConfigFor(Shape(32, 16, 512, 128, true)), WgmmaConfig::kFree);
  EXPECT_EQ(WgmmaConfigFor(Shape(32, 8, 512, 256, true)), WgmmaConfig::kFree);
  EXPECT_EQ(WgmmaConfigFor(Shape(16, 8, 1024, 256, true)), WgmmaConfig::kFree);
  EXPECT_EQ(WgmmaConfigFor(Shape(16, 8, 1024, 200, true)), WgmmaConfig::kFree);  // padded to 256
  EXPECT_EQ(WgmmaConfigFor(Shape(16, 16, 1024, 128, true)), WgmmaConfig::kPingPong);
  EXPECT_EQ(WgmmaConfigFor(Shape(16, 16, 1024, 96, true)), WgmmaConfig::kPingPong);
  EXPECT_EQ(WgmmaConfigFor(Shape(16, 8, 2048, 256, true)), WgmmaConfig::kPingPong);
  EXPECT_EQ(WgmmaConfigFor(Shape(16, 32, 1024, 64, true)), WgmmaConfig::kPingPong);
  EXPECT_EQ(WgmmaConfigFor(Shape(16, 16, 1024, 128, false)), WgmmaConfig::kPingPong);
  EXPECT_EQ(WgmmaConfigFor(Shape(4, 16, 4096, 128, true)), WgmmaConfig::kPingPong);
  // Persistent when an item is short (keys times padded d at most 2^17)
  // and the chunks fill their rounds to 90%: 4096 query blocks in 32
  // rounds of 132 (97%); causal, 525 query blocks of 175 heads make 263
  // chunks (2 rounds, 99.6%).
  EXPECT_TRUE(WgmmaPersistent(Shape(32, 32, 512, 64, false), 1, 132));
  for (int splits : {1, 3})
    for (bool causal : {false, true})
      for (int64_t d : {64, 128, 256})
        EXPECT_TRUE(WgmmaPersistent(Shape(5, 35, 300, d, causal), splits, 132))
            << splits << " " << causal << " " << d;
  // Keys times the padded head dim squared at most 2^26: 4096 keys at
  // d = 128 but not 8192 (causal: 8192, half on average, but not 16384);
  // 1024 at d = 256 but not 2048 (causal 2048 but not 4096); 16384 at
  // d = 64.
  EXPECT_TRUE(WgmmaPersistent(Shape(4, 16, 4096, 128, false), 1, 132));
  EXPECT_FALSE(WgmmaPersistent(Shape(2, 16, 8192, 128, false), 1, 132));
  EXPECT_TRUE(WgmmaPersistent(Shape(2, 16, 8192, 128, true), 1, 132));
  EXPECT_FALSE(WgmmaPersistent(Shape(1, 16, 16384, 128, true), 1, 132));
  EXPECT_TRUE(WgmmaPersistent(Shape(16, 8, 1024, 256, false), 1, 132));
  EXPECT_FALSE(WgmmaPersistent(Shape(8, 8, 2048, 256, false), 1, 132));
  EXPECT_TRUE(WgmmaPersistent(Shape(8, 8, 2048, 256, true), 1, 132));
  EXPECT_FALSE(WgmmaPersistent(Shape(4, 8, 4096, 256, true), 1, 132));
  EXPECT_TRUE(WgmmaPersistent(Shape(1, 32, 16384, 64, false), 1, 132));
  // 700 keys an item; 3366 chunks in 26 rounds (98%).
  EXPECT_TRUE(WgmmaPersistent(Shape(1, 66, 2100, 120, false), 3, 132));
  // Three consumers: 528 blocks of 192 rows in 4 rounds; 539 blocks in 5
  // rounds fill 82%; causal, 387 chunks of 43 blocks' pairs in 3 rounds
  // (98%), 280 in 3 (71%); two consumers, causal, 408 chunks in 4 (77%).
  EXPECT_TRUE(WgmmaPersistent(Shape(1, 48, 2100, 64, false), 1, 132));
  EXPECT_FALSE(WgmmaPersistent(Shape(1, 48, 2100, 64, true), 1, 132));
  EXPECT_FALSE(WgmmaPersistent(Shape(1, 49, 2100, 64, false), 1, 132));
  EXPECT_TRUE(WgmmaPersistent(Shape(1, 18, 8200, 64, true), 1, 132));
  EXPECT_FALSE(WgmmaPersistent(Shape(1, 13, 8200, 64, true), 1, 132));
  EXPECT_TRUE(WgmmaPersistent(Shape(1, 176, 500, 48, false), 1, 132));
  // 192 chunks (32 query blocks split 3 ways, paired) in 2 rounds: 73%.
  EXPECT_FALSE(WgmmaPersistent(Shape(1, 4, 4096, 128, true), 3, 132));
  // 131 of 132 SMs in one round, 99%, but no block has a next item; 262
  // in 2 rounds: 99%; 67 of 132: 51%.
  EXPECT_FALSE(WgmmaPersistent(Shape(1, 131, 128, 128, false), 1, 132));
  EXPECT_TRUE(WgmmaPersistent(Shape(1, 262, 128, 128, false), 1, 132));
  EXPECT_FALSE(WgmmaPersistent(Shape(1, 67, 128, 128, false), 1, 132));
  EXPECT_FALSE(WgmmaPersistent(Shape(1, 1, 128, 128, false), 1, 0));
}

// The balanced tail (WgmmaTailFor): 2048 items of 128 rows (every d = 128
// point of the FlashAttention grid) leave 64 of 132 SMs idle in the last of
// 16 rounds (3%): its 68 items are cut over the SMs after 15 rounds whole.
TEST(CudaAttentionWgmma, BalancedTailRule) {
  auto tail = [](const AttentionShape& shape, int splits, int sms) {
    const WgmmaTail t = WgmmaTailFor(shape, splits, sms);
    return std::pair{t.whole_items, t.tail_items};
  };
  for (int64_t n : {2048, 4096, 8192, 16384})
    EXPECT_EQ(tail(Shape(16384 / n, 16, n, 128, false), 1, 132), std::pair(1980, 68)) << n;
  // 204 items (a padded head dim) and 238.
  EXPECT_EQ(tail(Shape(1, 12, 2100, 112, false), 1, 132), std::pair(132, 72));
  // d = 96 has tiles of its own, and no tail.
  EXPECT_EQ(tail(Shape(1, 12, 2100, 96, false), 1, 132), std::pair(0, 0));
  EXPECT_EQ(tail(Shape(2, 7, 2100, 128, false), 1, 132), std::pair(132, 106));
  // d = 64 where two consumers run (WgmmaConsumers) at N >= 2048: B 1, H 8,
  // N 8192 (512 items), and 272 items of 17 key tiles (the last round's 8
  // take the round before them along; a padded head dim too).
  EXPECT_EQ(tail(Shape(1, 8, 8192, 64, false), 1, 132), std::pair(396, 116));
  EXPECT_EQ(tail(Shape(1, 16, 2100, 64, false), 1, 132), std::pair(132, 140));
  EXPECT_EQ(tail(Shape(1, 16, 2100, 48, false), 1, 132), std::pair(132, 140));
  // 289 items: a last round of 25 takes the round before it along.
  EXPECT_EQ(tail(Shape(1, 17, 2100, 128, false), 1, 132), std::pair(132, 157));
  // None: causal, split, another tiling (d 128 at N < 2048, d 64 of three
  // consumers or one, d 256), items under 2048 keys (d 64: 4096 items of 8
  // key tiles), full rounds, idle SMs under 2% (16 of 2112 in one round; 28
  // of 132 in the last of 27), no round of whole items before the tail (128
  // items; 102; 153, whose last 21 would take the round before them along),
  // or no SMs.
  EXPECT_EQ(tail(Shape(4, 16, 4096, 128, true), 1, 132), std::pair(0, 0));
  EXPECT_EQ(tail(Shape(4, 16, 4096, 128, false), 2, 132), std::pair(0, 0));
  EXPECT_EQ(tail(Shape(16, 16, 1024, 128, false), 1, 132), std::pair(0, 0));
  EXPECT_EQ(tail(Shape(4, 16, 4096, 64, false), 1, 132), std::pair(0, 0));
  EXPECT_EQ(tail(Shape(2, 4, 1000, 64, false), 1, 132), std::pair(0, 0));
  EXPECT_EQ(tail(Shape(16, 32, 1024, 64, false), 1, 132), std::pair(0, 0));
  EXPECT_EQ(tail(Shape(4, 16, 4096, 256, false), 1, 132), std::pair(0, 0));
  EXPECT_EQ(tail(Shape(4, 33, 4096, 128, false), 1, 132), std::pair(0, 0));
  EXPECT_EQ(tail(Shape(1, 131, 2048, 128, false), 1, 132 * 16), std::pair(0, 0));
  EXPECT_EQ(tail(Shape(1, 221, 2048, 128, false), 1, 132), std::pair(0, 0));
  EXPECT_EQ(tail(Shape(1, 4, 4096, 128, false), 1, 132), std::pair(0, 0));
  EXPECT_EQ(tail(Shape(1, 6, 2100, 128, false), 1, 132), std::pair(0, 0));
  EXPECT_EQ(tail(Shape(1, 9, 2100, 128, false), 1, 132), std::pair(0, 0));
  EXPECT_EQ(tail(Shape(4, 16, 4096, 128, false), 1, 0), std::pair(0, 0));
  // The grid: persistent with a tail (N = 8192 is not, without one), and
  // the plan's workspace: counters of 8 warps an item, then 3 pieces' partials.
  EXPECT_TRUE(WgmmaGridFor(Shape(2, 16, 8192, 128, false), 1, 132, true).persistent);
  EXPECT_FALSE(WgmmaGridFor(Shape(2, 16, 8192, 128, false), 1, 132, false).persistent);
  EXPECT_EQ(WgmmaGridFor(Shape(2, 16, 8192, 128, false), 1, 132, false).tail.tail_items, 0);
  const WgmmaTail t = WgmmaTailFor(Shape(4, 16, 4096, 128, false), 1, 132);
  EXPECT_EQ(WgmmaTailCounterBytes(t), 2304);  // 68 * 8 * 4 = 2176, to 256
  EXPECT_EQ(WgmmaTailWorkspaceBytes(t), 2304 + int64_t(68) * 3 * 8 * 68 * 32 * 4);
  EXPECT_EQ(WgmmaTailWorkspaceBytes(WgmmaTail{}), 0);
}

TEST(CudaAttention, FusedRunsTheWgmmaKernelOnAHopperDevice) {
  if (const auto count = server::worker::backends::cuda::CudaDeviceCount(); !count.ok())
    GTEST_SKIP() << count.status().message();
  int major = 0, minor = 0;
  ASSERT_EQ(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0), cudaSuccess);
  ASSERT_EQ(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, 0), cudaSuccess);
  const bool hopper = major == 9 && minor == 0;
  EXPECT_EQ(WgmmaAttentionRuns(DType::kFp16), hopper);
  EXPECT_EQ(WgmmaAttentionRuns(DType::kBf16), hopper);
  EXPECT_FALSE(WgmmaAttentionRuns(DType::kFp32));
  EXPECT_FALSE(WgmmaAttentionRuns(DType::kFp8));  // (attention_fused_fp8.h's kernel)
  EXPECT_EQ(Sm90aDevice(), hopper);
  const FusedAttentionPlan plan =
      PlanAttentionFused(Shape(4, 16, 4096, 128, false), DType::kFp16, 132);
  EXPECT_NE(plan.description.find(hopper ? "wgmma" : "mma.sync"), std::string::npos)
      << plan.description;
  // The wgmma kernel names a head dim it pads (d = 80 runs d = 96's tiles).
  const std::string padded =
      PlanAttentionFused(Shape(2, 16, 2048, 80, false), DType::kFp16, 132).description;
  EXPECT_EQ(padded.find("head dim padded to 96") != std::string::npos, hopper) << padded;
  const std::string exact =
      PlanAttentionFused(Shape(2, 16, 2048, 96, false), DType::kFp16, 132).description;
  EXPECT_EQ(exact.find("head dim padded"), std::string::npos) << exact;
  const FusedAttentionPlan fp32 =
      PlanAttentionFused(Shape(4, 16, 4096, 128, false), DType::kFp32, 132);
  EXPECT_NE(fp32.description.find("mma.sync 3xFP16"), std::string::npos) << fp32.description;
}

TEST(CudaAttentionFp8, PlanIsOnePassWithVTransposedIntoTheWorkspace) {
  // Host only. 4 x 16 heads of 1000 keys, 5 tiles of 224, each two atoms
  // of d = 80 rows of 128 bytes: V^T's bytes.
  const FusedAttentionPlan plan =
      PlanAttentionFused(Shape(4, 16, 1000, 80, true), DType::kFp8, 132);
  EXPECT_EQ(plan.splits, 1);
  EXPECT_FALSE(plan.balanced_tail);
  EXPECT_EQ(plan.workspace_bytes, int64_t(64) * 5 * 2 * 80 * 128);
  EXPECT_NE(plan.description.find("key tiles of 224"), std::string::npos) << plan.description;
  EXPECT_EQ(plan.workspace_bytes, Fp8FusedWorkspaceBytes(Shape(4, 16, 1000, 80, true)));
  EXPECT_NE(plan.description.find("FP8 wgmma"), std::string::npos) << plan.description;
  EXPECT_NE(plan.description.find("512 query blocks"), std::string::npos) << plan.description;
  EXPECT_TRUE(FusedFp8Supports(128));
  EXPECT_TRUE(FusedFp8Supports(48));
  EXPECT_FALSE(FusedFp8Supports(72));
  EXPECT_FALSE(FusedFp8Supports(256));
}

TEST(CudaAttentionFp8, WgmmaProbeComputesSAndPvExactly) {
  // The fp8 kernel's operand layouts alone (tests/gpu_wgmma_fp8_probe.h), on
  // values whose products and sums are exact: Q's rows one-hot (+-1 at
  // column 37 i mod 128), K and V in {-2, ..., 2}, so that S holds K's
  // entries, exact in E4M3, and O = S V sums integers. A layout mistake
  // moves values: S wrong points at the accumulators' layout or the
  // swizzle; S right and O wrong at P's A operand or V^T's key order.
  if (const auto count = server::worker::backends::cuda::CudaDeviceCount(); !count.ok())
    GTEST_SKIP() << count.status().message();
  if (!Sm90aDevice()) GTEST_SKIP() << "FP8 wgmma needs a compute capability 9.0 device";
  constexpr int kRows = 64, kKeys = 128, kD = 128;
  std::vector<float> qf(kRows * kD, 0.0f), kf(kKeys * kD), vf(kKeys * kD);
  for (int i = 0; i < kRows; ++i) qf[size_t(i * kD + 37 * i % kD)] = i % 2 ? -1.0f : 1.0f;
  for (size_t j = 0; j < kf.size(); ++j) {
    kf[j] = float(int((j * 7919 + 13) % 5) - 2);
    vf[j] = float(int((j * 104729 + 7) % 5) - 2);
  }
  auto bytes = [](const std::vector<float>& x) {
    std::vector<uint8_t> b(x.size());
    for (size_t i = 0; i < x.size(); ++i) b[i] = FloatToE4M3Bits(x[i]);
    return b;
  };
  std::vector<float> want_s(kRows * kKeys, 0.0f), want_o(kRows * kD, 0.0f);
  for (int i = 0; i < kRows; ++i)
    for (int j = 0; j < kKeys; ++j)
      for (int c = 0; c < kD; ++c)
        want_s[size_t(i * kKeys + j)] += qf[size_t(i * kD + c)] * kf[size_t(j * kD + c)];
  for (int i = 0; i < kRows; ++i)
    for (int c = 0; c < kD; ++c)
      for (int j = 0; j < kKeys; ++j)
        want_o[size_t(i * kD + c)] += want_s[size_t(i * kKeys + j)] * vf[size_t(j * kD + c)];
  std::vector<DeviceBuffer> buffers;
  for (size_t size : {qf.size(), kf.size(), vf.size(), want_s.size() * 4, want_o.size() * 4}) {
    auto buffer = DeviceBuffer::Allocate(size);
    ASSERT_TRUE(buffer.ok()) << buffer.status();
    buffers.push_back(*std::move(buffer));
  }
  for (auto [i, host] : {std::pair{0, bytes(qf)}, std::pair{1, bytes(kf)}, std::pair{2, bytes(vf)}})
    ASSERT_EQ(
        cudaMemcpy(buffers[size_t(i)].get(), host.data(), host.size(), cudaMemcpyHostToDevice),
        cudaSuccess);
  ASSERT_EQ(::kbench::tests::RunWgmmaFp8Probe(static_cast<const uint8_t*>(buffers[0].get()),
                                              static_cast<const uint8_t*>(buffers[1].get()),
                                              static_cast<const uint8_t*>(buffers[2].get()),
                                              static_cast<float*>(buffers[3].get()),
                                              static_cast<float*>(buffers[4].get())),
            cudaSuccess);
  for (auto [i, want, name] : {std::tuple{3, &want_s, "S"}, std::tuple{4, &want_o, "O"}}) {
    std::vector<float> got(want->size());
    ASSERT_EQ(
        cudaMemcpy(got.data(), buffers[size_t(i)].get(), got.size() * 4, cudaMemcpyDeviceToHost),
        cudaSuccess);
    size_t wrong = 0, first = got.size();
    for (size_t x = 0; x < got.size(); ++x)
      if (got[x] != (*want)[x]) {
        ++wrong;
        first = std::min(first, x);
      }
    EXPECT_EQ(wrong, 0u) << name << ": first wrong at row " << first / 128 << ", column "
                         << first % 128 << ": " << (first < got.size() ? got[first] : 0.0f)
                         << " against " << (first < got.size() ? (*want)[first] : 0.0f);
  }
}

TEST(CudaAttentionFp8, VtKeyOrderIsTheAccumulatorsAsTheAOperandReadsThem) {
  // Host only. Thread q of a quad holds, per row, S's columns 8 n + 2 q + e
  // of each 16 (n, e in {0, 1}; the wgmma accumulator layout), rounded into
  // one register in that order; the A operand reads that register as
  // positions 4 q..4 q + 3. So position 4 q + 2 n + e must hold key
  // 8 n + 2 q + e, in both halves of 32, and every key exactly once.
  std::vector<int> seen(32, 0);
  for (int half : {0, 16})
    for (int q = 0; q < 4; ++q)
      for (int n = 0; n < 2; ++n)
        for (int e = 0; e < 2; ++e) {
          const int p = half + 4 * q + 2 * n + e;
          EXPECT_EQ(Fp8VtKey(p), half + 8 * n + 2 * q + e) << p;
          ++seen[size_t(Fp8VtKey(p))];
        }
  EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), 32);
}

// kFusedMma: the mma.sync kernel called directly (LaunchAttentionFused runs
// the wgmma kernel on a Hopper device, so it needs cases of its own); for
// fp32, the 3xFP16 kernel in Case::fp32_config (fused runs the config
// Fp32ConfigFor picks).
// kFusedFree, kFusedPingPong: the wgmma kernel in each config, whichever
// WgmmaConfigFor picks for fused (Hopper only).
enum class Variant { kNaive, kFused, kFusedMma, kFusedFree, kFusedPingPong };

struct Case {
  Variant variant;
  DType dtype;
  bool causal;
  AttentionShape shape;  // causal is taken from `causal`
  // fused only: 0 = PlanAttentionFused on this device; more = these splits
  // forced on the default tiling.
  int splits = 0;
  // fused only: the device's plan must split this shape.
  bool expect_split = false;
  // kFusedMma, fp32: the tiling.
  Fp32Config fp32_config = Fp32Config::kWarps8Rows16;
  // fused: the device's plan must balance this shape's last round
  // (WgmmaTailFor).
  bool expect_tail = false;
  // Launches on one workspace (the output poisoned before each): a balanced
  // tail's counters must be zero again after each.
  int launches = 1;
  // fused fp32: the inputs' range measured by the range pass
  // (AttentionTensors::input_bound 0) rather than told (the seeded inputs'
  // bound, as the server tells it).
  bool measured_range = false;
  // With measured_range, fp32 inputs out of fp16's range: Q scaled by
  // 2^q_exp and K by 2^-q_exp (the scores unchanged), V by 2^v_exp (O
  // scaled by it), each exactly, so the exact output is the reference's
  // times 2^v_exp.
  int q_exp = 0;
  int v_exp = 0;
};

// An exponent in a test name: "m40" for -40.
std::string ExponentName(int e) { return (e < 0 ? "m" : "") + std::to_string(std::abs(e)); }

std::string CaseName(const ::testing::TestParamInfo<Case>& info) {
  const Case& c = info.param;
  const char* variant = c.variant == Variant::kNaive       ? "naive"
                        : c.variant == Variant::kFused     ? "fused"
                        : c.variant == Variant::kFusedMma  ? "fusedmma"
                        : c.variant == Variant::kFusedFree ? "fusedfree"
                                                           : "fusedpingpong";
  return std::string(variant) + "_" + DTypeName(c.dtype) + (c.causal ? "_causal" : "_full") + "_b" +
         std::to_string(c.shape.batch) + "h" + std::to_string(c.shape.heads) + "n" +
         std::to_string(c.shape.seq_len) + "d" + std::to_string(c.shape.head_dim) +
         (c.splits > 0 ? "_s" + std::to_string(c.splits) : "") +
         (c.variant == Variant::kFusedMma && c.dtype == DType::kFp32
              ? "_fp32c" + std::to_string(int(c.fp32_config))
              : "") +
         (c.launches > 1 ? "_x" + std::to_string(c.launches) : "") +
         (c.measured_range ? "_measured" : "") +
         (c.q_exp != 0 || c.v_exp != 0
              ? "_q2e" + ExponentName(c.q_exp) + "v2e" + ExponentName(c.v_exp)
              : "");
}

// Test names and ctest names show the case, not its bytes.
void PrintTo(const Case& c, std::ostream* os) {
  *os << CaseName(::testing::TestParamInfo<Case>(c, 0));
}

class CudaAttentionMatchesReference : public ::testing::TestWithParam<Case> {
 protected:
  void SetUp() override {
    if (const auto count = server::worker::backends::cuda::CudaDeviceCount(); !count.ok())
      GTEST_SKIP() << count.status().message();
    if (!stream_) {
      auto stream = Stream::Create();
      ASSERT_TRUE(stream.ok()) << stream.status();
      auto cublas = CublasHandle::Create();
      ASSERT_TRUE(cublas.ok()) << cublas.status();
      stream_ = std::make_unique<Stream>(*std::move(stream));
      cublas_ = std::make_unique<CublasHandle>(*std::move(cublas));
    }
  }
  static void TearDownTestSuite() {
    cublas_.reset();
    stream_.reset();
  }

  // Runs case `c` on `shape` with NaN-poisoned output; the output as float.
  static absl::StatusOr<std::vector<float>> Run(const Case& c, const AttentionShape& shape) {
    const cudaStream_t stream = stream_->get();
    // (fp8 inputs give a bf16 O.)
    const DType out_dtype = AttentionOutputDType(c.dtype);
    const size_t in_bytes = size_t(shape.TensorElements()) * DTypeBytes(c.dtype);
    const size_t bytes = size_t(shape.TensorElements()) * DTypeBytes(out_dtype);
    KBENCH_ASSIGN_OR_RETURN(DeviceBuffer q, DeviceBuffer::Allocate(in_bytes));
    KBENCH_ASSIGN_OR_RETURN(DeviceBuffer k, DeviceBuffer::Allocate(in_bytes));
    KBENCH_ASSIGN_OR_RETURN(DeviceBuffer v, DeviceBuffer::Allocate(in_bytes));
    KBENCH_ASSIGN_OR_RETURN(DeviceBuffer o, DeviceBuffer::Allocate(bytes));
    for (auto [buffer, input] : {std::pair{&q, InputStream::kQ}, std::pair{&k, InputStream::kK},
                                 std::pair{&v, InputStream::kV}}) {
      KBENCH_CUDA_RETURN_IF_ERROR(LaunchFillSeeded(c.dtype, kSeed, input, 0, buffer->get(),
                                                   shape.TensorElements(), stream));
    }
    if (c.q_exp != 0 || c.v_exp != 0) {
      if (c.dtype != DType::kFp32 || !c.measured_range)
        return absl::InvalidArgumentError("scaled inputs are fp32's, with their range measured");
      KBENCH_RETURN_IF_ERROR(cublas_->Bind(stream));
      for (auto [buffer, e] :
           {std::pair{&q, c.q_exp}, std::pair{&k, -c.q_exp}, std::pair{&v, c.v_exp}}) {
        const float factor = std::ldexp(1.0f, e);
        KBENCH_CUBLAS_RETURN_IF_ERROR(cublasSscal(cublas_->get(), int(shape.TensorElements()),
                                                  &factor, static_cast<float*>(buffer->get()), 1));
      }
    }
    DeviceBuffer scores;
    if (c.variant == Variant::kNaive) {
      // All bytes 0xFF: NaN in fp32, fp16 and bf16 alike.
      KBENCH_CUDA_RETURN_IF_ERROR(cudaMemsetAsync(o.get(), 0xFF, bytes, stream));
      KBENCH_ASSIGN_OR_RETURN(
          scores, DeviceBuffer::Allocate(size_t(shape.ScoreElements()) * DTypeBytes(c.dtype)));
      KBENCH_RETURN_IF_ERROR(cublas_->Bind(stream));
      KBENCH_CUBLAS_RETURN_IF_ERROR(
          AttentionScoresGemm(cublas_->get(), shape, c.dtype, q.get(), k.get(), scores.get()));
      KBENCH_CUDA_RETURN_IF_ERROR(LaunchAttentionSoftmax(shape, c.dtype, scores.get(), stream));
      KBENCH_CUBLAS_RETURN_IF_ERROR(
          AttentionOutputGemm(cublas_->get(), shape, c.dtype, scores.get(), v.get(), o.get()));
    } else {
      int sms = 0;
      KBENCH_CUDA_RETURN_IF_ERROR(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
      FusedAttentionPlan plan = PlanAttentionFused(shape, c.dtype, sms);
      if (c.variant == Variant::kFusedMma) {
        const bool fp32 = c.dtype == DType::kFp32;
        plan.splits = c.splits > 0
                          ? c.splits
                          : SplitKvSplits(shape,
                                          fp32 ? Fp32SplitKvKernel(c.fp32_config, shape.head_dim)
                                               : MmaSplitKvKernel(shape.head_dim),
                                          sms);
        plan.workspace_bytes = FusedWorkspaceBytes(shape, c.dtype, plan.splits);
        plan.balanced_tail = false;  // (the wgmma kernel's)
        plan.workspace_zeroed_bytes = 0;
      }
      if (c.expect_split && plan.splits < 2)
        return absl::InternalError("no split: " + plan.description);
      if (c.splits == 0 && c.expect_tail != plan.balanced_tail)
        return absl::InternalError(std::string(c.expect_tail ? "no" : "a") +
                                   " balanced tail: " + plan.description);
      if (c.splits > 0) {  // (no balanced tail with them)
        plan.splits = c.splits;
        plan.balanced_tail = false;
        plan.workspace_bytes = FusedWorkspaceBytes(shape, c.dtype, c.splits);
        plan.workspace_zeroed_bytes = 0;
      }
      DeviceBuffer workspace;
      if (plan.workspace_bytes > 0) {
        KBENCH_ASSIGN_OR_RETURN(workspace, DeviceBuffer::Allocate(size_t(plan.workspace_bytes)));
        // NaN partials: a split or piece that leaves a row unwritten shows;
        // only the counters the plan names start at zero.
        KBENCH_CUDA_RETURN_IF_ERROR(
            cudaMemsetAsync(workspace.get(), 0xFF, size_t(plan.workspace_bytes), stream));
        KBENCH_CUDA_RETURN_IF_ERROR(
            cudaMemsetAsync(workspace.get(), 0, size_t(plan.workspace_zeroed_bytes), stream));
      }
      const AttentionTensors x{q.get(),         k.get(),
                               v.get(),         o.get(),
                               workspace.get(), c.measured_range ? 0.0f : kSeededInputBound};
      for (int launch = 0; launch < c.launches; ++launch) {
        KBENCH_CUDA_RETURN_IF_ERROR(cudaMemsetAsync(o.get(), 0xFF, bytes, stream));
        KBENCH_CUDA_RETURN_IF_ERROR(
            c.variant == Variant::kFusedMma && c.dtype == DType::kFp32
                ? LaunchAttentionFusedFp32(shape, x, c.fp32_config, plan.splits, stream)
            : c.variant == Variant::kFusedMma
                ? LaunchAttentionFusedMma(shape, c.dtype, x, kDefaultMmaConfig, plan.splits, stream)
            : c.variant == Variant::kFusedFree
                ? LaunchAttentionFusedWgmma(shape, c.dtype, x, plan.splits, WgmmaConfig::kFree,
                                            plan.balanced_tail, stream)
            : c.variant == Variant::kFusedPingPong
                ? LaunchAttentionFusedWgmma(shape, c.dtype, x, plan.splits, WgmmaConfig::kPingPong,
                                            plan.balanced_tail, stream)
                : LaunchAttentionFused(shape, c.dtype, x, plan, stream));
        if (plan.workspace_zeroed_bytes > 0) {
          std::vector<char> counters(size_t(plan.workspace_zeroed_bytes));
          KBENCH_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(
              counters.data(), workspace.get(), counters.size(), cudaMemcpyDeviceToHost, stream));
          KBENCH_RETURN_IF_ERROR(stream_->Synchronize());
          if (std::count(counters.begin(), counters.end(), 0) != int64_t(counters.size()))
            return absl::InternalError("launch " + std::to_string(launch) +
                                       " left the balanced tail's counters set");
        }
      }
    }
    return ToHost(o, out_dtype, *stream_);
  }

  // The reference of a problem, shared by the variants that check it.
  static const std::vector<double>& Reference(const AttentionShape& shape, DType dtype,
                                              const std::vector<AttentionRow>& rows) {
    const auto key = std::make_tuple(shape.batch, shape.heads, shape.seq_len, shape.head_dim,
                                     shape.causal, int(dtype));
    auto it = references_.find(key);
    if (it == references_.end())
      it = references_.emplace(key, AttentionReferenceRows(shape, kSeed, dtype, rows)).first;
    return it->second;
  }

  static inline std::unique_ptr<Stream> stream_;
  static inline std::unique_ptr<CublasHandle> cublas_;
  static inline std::map<std::tuple<int64_t, int64_t, int64_t, int64_t, bool, int>,
                         std::vector<double>>
      references_;
};

TEST_P(CudaAttentionMatchesReference, WritesEveryElementWithinTolerance) {
  const Case& c = GetParam();
  if ((c.variant == Variant::kFusedFree || c.variant == Variant::kFusedPingPong) &&
      !WgmmaAttentionRuns(c.dtype))
    GTEST_SKIP() << "the wgmma kernel needs a compute capability 9.0 device";
  AttentionShape shape = c.shape;
  shape.causal = c.causal;
  const absl::StatusOr<std::vector<float>> output = Run(c, shape);
  ASSERT_TRUE(output.ok()) << output.status();
  const std::vector<float>& out = *output;
  int64_t non_finite = 0;
  for (float x : out) non_finite += !std::isfinite(x);
  EXPECT_EQ(non_finite, 0) << "elements left unwritten (NaN) or overflowed";

  const auto rows = SampleAttentionRows(shape, CheckedRows(shape), kSeed);
  const std::vector<double>& ref = Reference(shape, c.dtype, rows);
  // A variant against the exact result.
  const Tolerance tolerance = AttentionTolerances(c.dtype, shape).variant;
  Comparison errors;
  const int64_t d = shape.head_dim;
  for (size_t r = 0; r < rows.size(); ++r)
    for (int64_t x = 0; x < d; ++x) {
      const int64_t index = (rows[r].batch_head * shape.seq_len + rows[r].row) * d + x;
      // (Scaled inputs: O times 2^v_exp, taken out exactly.)
      errors.Add(index, std::ldexp(out[size_t(index)], -c.v_exp), ref[r * size_t(d) + size_t(x)],
                 tolerance.element);
    }
  EXPECT_EQ(errors.checked, uint64_t(rows.size()) * uint64_t(d));
  EXPECT_TRUE(errors.Passes(tolerance))
      << "rel L2 " << errors.rel_l2_error() << " (tolerance " << tolerance.rel_l2 << "), "
      << errors.over_tolerance << " elements over atol " << tolerance.element.atol << " + rtol "
      << tolerance.element.rtol << ", worst element " << errors.worst_index << " ("
      << errors.worst_excess << " x its bound), max abs " << errors.max_abs_error;
}

std::vector<Case> Cases() {
  // N: 1; 77 (odd: scalar softmax, partial tiles everywhere); 200 (16-byte
  // rows, partial tiles); 129 with batch * heads = 150 > 132 SMs; 1000.
  const std::vector<std::tuple<int64_t, int64_t, int64_t>> shapes = {
      {1, 1, 1}, {2, 3, 77}, {1, 2, 200}, {3, 50, 129}, {1, 1, 1000}};
  std::vector<Case> cases;
  for (Variant variant : {Variant::kNaive, Variant::kFused})
    for (DType dtype : {DType::kFp32, DType::kFp16, DType::kBf16})
      for (bool causal : {false, true})
        for (int64_t d : {64, 128})
          for (const auto& [b, h, n] : shapes)
            cases.push_back({variant, dtype, causal, Shape(b, h, n, d, causal)});
  // Longer rows: several key tiles and query blocks; the naive softmax's
  // block-per-row and streaming kernels (33000 fp16 scores a row do not fit
  // its registers).
  for (bool causal : {false, true}) {
    for (Variant variant : {Variant::kNaive, Variant::kFused})
      for (DType dtype : {DType::kFp32, DType::kFp16})
        cases.push_back({variant, dtype, causal, Shape(1, 2, 4100, 128, causal)});
    cases.push_back({Variant::kNaive, DType::kFp16, causal, Shape(1, 1, 33000, 64, causal)});
    cases.push_back({Variant::kNaive, DType::kFp32, causal, Shape(1, 1, 33001, 64, causal)});
  }
  // Head dims padded up to the tiles of 64, 128 and 256 (on Hopper, 72 to
  // d = 96's and 96 itself), and 256 itself, in one pass and split (1000 keys
  // on 2 query blocks), both dtypes' kernels.
  for (DType dtype : {DType::kFp32, DType::kFp16, DType::kBf16})
    for (bool causal : {false, true})
      for (int64_t d : {32, 72, 96, 200, 256}) {
        cases.push_back({Variant::kFused, dtype, causal, Shape(2, 3, 77, d, causal)});
        cases.push_back({Variant::kFused, dtype, causal, Shape(3, 50, 129, d, causal)});
        cases.push_back({Variant::kFused, dtype, causal, Shape(1, 1, 1000, d, causal)});
      }
  // naive at d = 256, the largest head_dim.
  for (DType dtype : {DType::kFp32, DType::kFp16})
    cases.push_back({Variant::kNaive, dtype, true, Shape(2, 3, 77, 256, true)});
  // Split-KV: the low-parallelism shapes of the issue, which the plan
  // splits (24 and 128 query blocks on 132 SMs), in every dtype.
  for (DType dtype : {DType::kFp32, DType::kFp16, DType::kBf16}) {
    for (bool causal : {false, true})
      cases.push_back({Variant::kFused, dtype, causal, Shape(1, 1, 3000, 128, causal), 0, true});
    cases.push_back({Variant::kFused, dtype, true, Shape(1, 4, 4096, 128, true), 0, true});
    // Forced splits: uneven shares with 300 query blocks, and
    // kMaxKvSplits over fewer key tiles (empty splits, causal ones too).
    for (bool causal : {false, true})
      for (int64_t d : {64, 128}) {
        cases.push_back({Variant::kFused, dtype, causal, Shape(3, 50, 129, d, causal), 3});
        cases.push_back(
            {Variant::kFused, dtype, causal, Shape(1, 2, 1000, d, causal), kMaxKvSplits});
      }
  }
  // The mma.sync kernel on its own: tails, padded and every tiled head dim,
  // its auto plan on a low-parallelism shape and forced splits.
  for (DType dtype : {DType::kFp16, DType::kBf16})
    for (bool causal : {false, true}) {
      for (int64_t d : {64, 96, 128, 256}) {
        cases.push_back({Variant::kFusedMma, dtype, causal, Shape(2, 3, 77, d, causal)});
        cases.push_back({Variant::kFusedMma, dtype, causal, Shape(1, 1, 1000, d, causal)});
      }
      cases.push_back({Variant::kFusedMma, dtype, causal, Shape(1, 1, 3000, 128, causal)});
      cases.push_back({Variant::kFusedMma, dtype, causal, Shape(3, 50, 129, 128, causal), 3});
    }
  // fp32's 3xFP16 tilings, each on tails, every tiled head dim, its auto
  // plan on a low-parallelism shape and forced splits.
  for (Fp32Config config :
       {Fp32Config::kWarps8Rows16, Fp32Config::kWarps4Rows16, Fp32Config::kWarps4Rows32})
    for (bool causal : {false, true}) {
      for (int64_t d : {64, 128, 256})
        cases.push_back({Variant::kFusedMma, DType::kFp32, causal, Shape(2, 3, 77, d, causal), 0,
                         false, config});
      cases.push_back({Variant::kFusedMma, DType::kFp32, causal, Shape(1, 1, 3000, 128, causal), 0,
                       false, config});
      cases.push_back({Variant::kFusedMma, DType::kFp32, causal, Shape(3, 50, 129, 64, causal), 3,
                       false, config});
    }
  // fp32 with its inputs' range measured (Case::measured_range): in range,
  // and out of fp16's range, far above and below it (Case::q_exp, v_exp): Q
  // past fp16's largest finite value with K below its normal range, and
  // the reverse; V at 2^+-100; in one pass, split (the partials scaled
  // back), a padded head dim and another tiling.
  for (bool causal : {false, true}) {
    auto scaled = [&](Variant variant, AttentionShape shape, int splits, Fp32Config config,
                      int q_exp, int v_exp) {
      Case c{variant, DType::kFp32, causal, shape, splits};
      c.fp32_config = config;
      c.measured_range = true;
      c.q_exp = q_exp;
      c.v_exp = v_exp;
      cases.push_back(c);
    };
    const Fp32Config fused_config = Fp32Config::kWarps8Rows16;  // (kFused ignores it)
    scaled(Variant::kFused, Shape(3, 50, 129, 128, causal), 0, fused_config, 0, 0);
    scaled(Variant::kFused, Shape(2, 3, 77, 64, causal), 0, fused_config, 20, 0);
    scaled(Variant::kFused, Shape(3, 50, 129, 128, causal), 0, fused_config, -40, 100);
    scaled(Variant::kFused, Shape(1, 1, 1000, 128, causal), 0, fused_config, 100, -100);
    scaled(Variant::kFused, Shape(3, 50, 129, 64, causal), 3, fused_config, -20, -30);
    scaled(Variant::kFused, Shape(2, 3, 77, 96, causal), 0, fused_config, 60, -60);
    scaled(Variant::kFusedMma, Shape(2, 3, 77, 256, causal), 0, Fp32Config::kWarps4Rows16, 30, 60);
  }
  // The wgmma kernel's pipeline: many key tiles with the slots reused (N
  // past 2 stages x 128 keys, tails), and one query block per head.
  for (DType dtype : {DType::kFp16, DType::kBf16})
    for (bool causal : {false, true})
      for (int64_t d : {64, 128, 256})
        for (Variant variant : {Variant::kFused, Variant::kFusedFree, Variant::kFusedPingPong})
          cases.push_back({variant, dtype, causal, Shape(2, 2, 2049, d, causal)});
  // Its persistent grid (on 132 SMs; CudaAttentionWgmma.Rules checks that
  // these shapes run it): 175 heads of 300 rows are 525 query blocks (4
  // rounds) or, causal, 263 chunks (2 rounds), three times as many split 3
  // ways, so each block runs several items, with Q's slot and the
  // pipeline's phases carried from item to item; an odd number of query
  // blocks a head (3) and of heads leaves the last causal chunk one middle
  // block.
  for (DType dtype : {DType::kFp16, DType::kBf16})
    for (bool causal : {false, true}) {
      for (int64_t d : {64, 128, 256})
        for (Variant variant : {Variant::kFused, Variant::kFusedFree, Variant::kFusedPingPong})
          cases.push_back({variant, dtype, causal, Shape(5, 35, 300, d, causal)});
      cases.push_back({Variant::kFused, dtype, causal, Shape(5, 35, 300, 128, causal), 3});
      // Taking turns, a persistent consumer issues the next item's first S
      // with this item's last P V (kCrossItem); split 3 ways, causal query
      // blocks of one key tile leave empty items between full ones.
      for (int64_t d : {64, 128})
        cases.push_back({Variant::kFusedPingPong, dtype, causal, Shape(5, 35, 300, d, causal), 3});
    }
  // Its three consumers (d = 64; CudaAttentionWgmma.Rules checks that these
  // shapes run them, and which run two): persistent (48 heads; causal, two
  // consumers, a block per item), a block per item (49 heads fill 82% of 5
  // rounds), and non-causal persistent at short rows. Its one consumer
  // (d = 64, the Rules too): 128 query blocks of 64 rows over 8 key tiles
  // (the 4 stages reused), and a padded head dim.
  for (DType dtype : {DType::kFp16, DType::kBf16})
    for (bool causal : {false, true}) {
      cases.push_back({Variant::kFused, dtype, causal, Shape(1, 48, 2100, 64, causal)});
      cases.push_back({Variant::kFused, dtype, causal, Shape(1, 176, 500, 48, causal)});
      cases.push_back({Variant::kFused, dtype, causal, Shape(2, 4, 1000, 64, causal)});
      cases.push_back({Variant::kFused, dtype, causal, Shape(2, 4, 1000, 48, causal)});
    }
  for (DType dtype : {DType::kFp16, DType::kBf16})
    cases.push_back({Variant::kFused, dtype, false, Shape(1, 49, 2100, 64, false)});
  // Causal, three consumers (N >= 8192): persistent with an odd number of
  // query blocks a head (43: the last chunk one middle block), a block per
  // item (13 heads), and split 3 ways.
  for (DType dtype : {DType::kFp16, DType::kBf16}) {
    cases.push_back({Variant::kFused, dtype, true, Shape(1, 18, 8200, 64, true)});
    cases.push_back({Variant::kFused, dtype, true, Shape(1, 13, 8200, 64, true)});
    cases.push_back({Variant::kFused, dtype, true, Shape(1, 18, 8200, 64, true), 3});
  }
  // The fp8 kernel (attention_fused_fp8.h): N of 1, of part of a key tile,
  // of many with the slots reused and a short last one, causal or not;
  // every head dim it pads up to 128 (32, 80, 96) and 128 itself; 150
  // heads (more blocks than SMs).
  for (bool causal : {false, true}) {
    for (const AttentionShape& shape :
         {Shape(1, 1, 1, 128, causal), Shape(2, 3, 77, 64, causal), Shape(3, 50, 129, 128, causal),
          Shape(1, 2, 1000, 80, causal), Shape(2, 2, 2049, 128, causal),
          Shape(1, 2, 4100, 128, causal), Shape(2, 3, 300, 32, causal),
          Shape(1, 4, 700, 96, causal)})
      cases.push_back({Variant::kFused, DType::kFp8, causal, shape});
  }
  // Its 176-key tiles (non-causal, d = 128, N >= 2048; the pipeline shapes
  // above run them one block per item): persistent, 66 heads of 17 query
  // blocks split 3 ways (a padded head dim), and 12 key tiles over
  // kMaxKvSplits (empty splits).
  for (DType dtype : {DType::kFp16, DType::kBf16}) {
    cases.push_back({Variant::kFused, dtype, false, Shape(1, 66, 2100, 120, false), 3});
    cases.push_back({Variant::kFused, dtype, false, Shape(1, 2, 2100, 128, false), kMaxKvSplits});
  }
  // Their short first tile, its S computed over its last keys alone: N =
  // 12 x 176 - 16 s - 1 pads the first tile with 16 s + 1 keys, of which S
  // skips 16 s (s even, 2 to 10) or 16 (s - 1) (s odd: the 17 keys left
  // before key 0 are masked), on the device's plan (s odd) or split 2 ways
  // (s even: the first split's first tile alone is short).
  for (DType dtype : {DType::kFp16, DType::kBf16})
    for (int64_t s = 1; s <= 10; ++s)
      cases.push_back({Variant::kFused, dtype, false,
                       Shape(1, 2, 12 * 176 - 16 * s - 1, 128, false), s % 2 ? 0 : 2});
  // Their balanced tail (on 132 SMs; CudaAttentionWgmma.BalancedTailRule
  // checks the items): 238 items of 12 key tiles, 132 whole and 106 cut
  // into runs of 9.6 tiles, so an item is up to three pieces; 204 items (a
  // padded head dim), 132 whole and 72 cut; 289 items, 132 whole and 157
  // cut (the round before the last's 25 too). The last query block and the
  // first key tile of each are short (N = 2049: the first tile's S skips 2
  // k-steps of its 63 keys before key 0, in the whole items and the first
  // pieces). At d = 64 (128-key tiles, two consumers): 272 items of 17 key
  // tiles, 132 whole and 140 cut into runs of 18 tiles, the last tile
  // short; taking turns, a piece's consumers issue the next piece's first
  // S with its last P V (kCrossItem).
  // Three launches on one workspace: its counters are zero after each; and
  // the consumers free (fused takes turns here).
  for (DType dtype : {DType::kFp16, DType::kBf16})
    for (const AttentionShape& shape :
         {Shape(2, 7, 2049, 128, false), Shape(1, 12, 2100, 112, false),
          Shape(1, 17, 2100, 128, false), Shape(1, 16, 2100, 64, false),
          Shape(1, 16, 2100, 48, false)})
      for (Variant variant : {Variant::kFused, Variant::kFusedFree}) {
        Case c{variant, dtype, false, shape};
        c.expect_tail = true;
        c.launches = variant == Variant::kFused ? 3 : 1;
        cases.push_back(c);
      }
  // d = 96's own tiles (head dims 72 to 96, WgmmaHeadDim): 176 keys
  // non-causal at N >= 2048 (a short first tile), else 128; split or not.
  for (DType dtype : {DType::kFp16, DType::kBf16})
    for (bool causal : {false, true}) {
      cases.push_back({Variant::kFused, dtype, causal, Shape(1, 20, 2100, 96, causal)});
      cases.push_back({Variant::kFused, dtype, causal, Shape(2, 3, 1000, 80, causal), 2});
      cases.push_back({Variant::kFused, dtype, causal, Shape(1, 2, 5000, 88, causal)});
    }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(VariantsDtypesShapes, CudaAttentionMatchesReference,
                         ::testing::ValuesIn(Cases()), CaseName);

}  // namespace
}  // namespace kbench::kernels::cuda

namespace kbench::kernels {
// Parameter tuples print the dtype by name.
void PrintTo(DType dtype, std::ostream* os) { *os << DTypeName(dtype); }
}  // namespace kbench::kernels

namespace kbench::server {
namespace {

using kernels::AttentionShape;
using kernels::DType;

constexpr uint64_t kSeed = 20261201;

AttentionShape Shape(int64_t b, int64_t h, int64_t n, int64_t d, bool causal) {
  AttentionShape s;
  s.batch = b;
  s.heads = h;
  s.seq_len = n;
  s.head_dim = d;
  s.causal = causal;
  return s;
}

std::string DTypeCausalName(DType dtype, bool causal) {
  return std::string(kernels::DTypeName(dtype)) + (causal ? "_causal" : "_full");
}

// The first CUDA device, opened once for the suite.
using CudaAttentionDevice = CudaDeviceTest;

TEST(CudaAttentionOffers, AttentionWithItsDtypesAndFusedHeadDims) {
  // Host only: the ops' "cuda" support, as ServerInfo lists it.
  const std::vector<v1::OpInfo> ops = proto::ops::OffersOf("cuda");
  const v1::OpInfo* attention = nullptr;
  for (const auto& op : ops)
    if (op.op() == "attention") attention = &op;
  ASSERT_NE(attention, nullptr);
  EXPECT_EQ(std::vector<std::string>(attention->variants().begin(), attention->variants().end()),
            (std::vector<std::string>{"naive", "fused"}));
  // fp32, fp16, bf16, fp8, by both.
  EXPECT_EQ(attention->dtypes_size(), 4);
  ASSERT_EQ(attention->variant_details_size(), 2);
  // naive runs any head_dim; fused every multiple of 8 from 32 to 256 (fp8:
  // AdmissionRefusesFp8FusedHeadDimsPastItsList).
  EXPECT_EQ(attention->variant_details(0).dtypes_size(), 4);
  EXPECT_EQ(attention->variant_details(1).dtypes_size(), 4);
  EXPECT_EQ(attention->variant_details(0).head_dims_size(), 0);
  std::vector<uint32_t> fused_dims;
  for (uint32_t d = 32; d <= 256; d += 8) fused_dims.push_back(d);
  EXPECT_EQ(std::vector<uint32_t>(attention->variant_details(1).head_dims().begin(),
                                  attention->variant_details(1).head_dims().end()),
            fused_dims);
}

TEST(CudaAttentionOffers, AdmissionRefusesFusedHeadDimsNamingTheSupported) {
  // Host only: the op's check of a problem against the chosen variants.
  const proto::ops::Op& op = proto::ops::AttentionOp();
  const Problem problem = MakeAttentionProblem(Shape(1, 1, 64, 100, false), DType::kFp16, kSeed);
  v1::Limits limits;
  v1::DeviceInfo gpu;
  gpu.set_sm_count(132);
  op.SetDefaultLimits(gpu, limits);
  const absl::Status status = op.CheckVariants(
      problem.request, {&op.variants()[proto::ops::kAttentionFused]}, "cuda", limits);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("head_dim 100"), std::string::npos) << status;
  EXPECT_NE(status.message().find("a multiple of 8 from 32 to 256"), std::string::npos) << status;
  EXPECT_TRUE(op.CheckVariants(problem.request, {&op.variants()[proto::ops::kAttentionNaive]},
                               "cuda", limits)
                  .ok());
}

TEST(CudaAttentionOffers, AdmissionRefusesFp8FusedHeadDimsPastItsList) {
  // Host only: fused runs fp8 at every multiple of 16 from 32 to 128; other
  // head dims of its list (72, 256) are refused in fp8 alone, naming the
  // list and the ways out; naive runs them.
  const proto::ops::Op& op = proto::ops::AttentionOp();
  v1::Limits limits;
  v1::DeviceInfo gpu;
  gpu.set_sm_count(132);
  op.SetDefaultLimits(gpu, limits);
  const proto::ops::VariantSpec* fused = &op.variants()[proto::ops::kAttentionFused];
  const proto::ops::VariantSpec* naive = &op.variants()[proto::ops::kAttentionNaive];
  for (int64_t d : {32, 48, 96, 128}) {
    const Problem problem = MakeAttentionProblem(Shape(1, 1, 64, d, false), DType::kFp8, kSeed);
    EXPECT_TRUE(op.CheckVariants(problem.request, {fused}, "cuda", limits).ok()) << d;
  }
  for (int64_t d : {72, 136, 256}) {
    const Problem fp8 = MakeAttentionProblem(Shape(1, 1, 64, d, false), DType::kFp8, kSeed);
    const absl::Status status = op.CheckVariants(fp8.request, {fused}, "cuda", limits);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << d;
    EXPECT_NE(status.message().find("head_dim " + std::to_string(d)), std::string::npos) << status;
    EXPECT_NE(status.message().find("a multiple of 16 from 32 to 128"), std::string::npos)
        << status;
    EXPECT_NE(status.message().find("--variant naive"), std::string::npos) << status;
    EXPECT_TRUE(op.CheckVariants(fp8.request, {naive}, "cuda", limits).ok()) << d;
    const Problem bf16 = MakeAttentionProblem(Shape(1, 1, 64, d, false), DType::kBf16, kSeed);
    EXPECT_TRUE(op.CheckVariants(bf16.request, {fused}, "cuda", limits).ok()) << d;
  }
}

TEST_F(CudaAttentionDevice, LauncherRefusesFusedHeadDimItDoesNotRun) {
  // Admission refuses it first (AdmissionRefusesFusedHeadDimsNamingTheSupported);
  // past admission the launcher refuses it before any launch, and the device
  // stays usable.
  auto workload = device_->Prepare(MakeAttentionProblem(Shape(1, 1, 64, 100, false), DType::kFp16,
                                                        kSeed, {proto::ops::kAttentionFused}),
                                   NeverCancelled);
  ASSERT_TRUE(workload.ok()) << workload.status();
  const absl::Status run = (*workload)->Run(0);
  EXPECT_FALSE(run.ok());
  EXPECT_NE(run.message().find("cudaErrorInvalidValue"), std::string::npos) << run;
  EXPECT_TRUE(device_->Healthy());
}

TEST_F(CudaAttentionDevice, NaiveScoresTooLargeForTheDeviceAreResourceExhausted) {
  // 2^21 x 2^21 fp16 scores: 8 TiB, more than any GPU has.
  auto workload =
      device_->Prepare(MakeAttentionProblem(Shape(1, 1, int64_t(1) << 21, 64, false), DType::kFp16,
                                            kSeed, {proto::ops::kAttentionNaive}),
                       NeverCancelled);
  ASSERT_FALSE(workload.ok());
  EXPECT_EQ(workload.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(workload.status().message().find("bytes"), std::string::npos) << workload.status();
  EXPECT_TRUE(device_->Healthy());
}

// The given rows of `buffer`, as float, head_dim values each, in order.
std::vector<float> ReadRows(worker::Workload& workload, proto::ops::OutputBuffer buffer,
                            const AttentionShape& shape,
                            const std::vector<kernels::AttentionRow>& rows) {
  const int64_t d = shape.head_dim;
  std::vector<float> out(rows.size() * size_t(d));
  for (size_t r = 0; r < rows.size(); ++r) {
    const int64_t first = (rows[r].batch_head * shape.seq_len + rows[r].row) * d;
    const absl::Status status =
        workload.Read(buffer, first, std::span<float>(out).subspan(r * size_t(d), size_t(d)));
    EXPECT_TRUE(status.ok()) << status;
  }
  return out;
}

// Sampled rows against their double reference (ref, head_dim a row).
kernels::Comparison AgainstExact(const std::vector<float>& out, const std::vector<double>& ref,
                                 const AttentionShape& shape,
                                 const std::vector<kernels::AttentionRow>& rows,
                                 const kernels::ElementTolerance& tolerance) {
  const int64_t d = shape.head_dim;
  kernels::Comparison c;
  for (size_t r = 0; r < rows.size(); ++r)
    for (int64_t x = 0; x < d; ++x)
      c.Add((rows[r].batch_head * shape.seq_len + rows[r].row) * d + x,
            out[r * size_t(d) + size_t(x)], ref[r * size_t(d) + size_t(x)], tolerance);
  return c;
}

// The attention variants that run `dtype` on CUDA (the registry's table):
// naive and fused, or naive alone for fp8.
std::vector<int> CudaVariantsOf(DType dtype) {
  std::vector<int> ids;
  for (const proto::ops::VariantSpec& variant : proto::ops::AttentionOp().variants())
    if (const proto::ops::VariantSupport* cuda = variant.On("cuda"))
      if (std::find(cuda->dtypes.begin(), cuda->dtypes.end(), dtype) != cuda->dtypes.end())
        ids.push_back(variant.id);
  return ids;
}

class CudaAttentionDeviceDtypes : public CudaAttentionDevice,
                                  public ::testing::WithParamInterface<std::tuple<DType, bool>> {};

// The device reference (kernels/cuda/attention/reference_kernel.h) against the
// double reference, on rows sampled over every batch-head, within the
// reference's own tolerance (kernels/attention/tolerances.h): the verifier's yardstick
// is itself right. Long rows too (N = 4100: several key tiles).
TEST_P(CudaAttentionDeviceDtypes, DeviceReferenceMatchesTheDoubleReference) {
  const auto [dtype, causal] = GetParam();
  for (const AttentionShape& shape :
       {Shape(3, 50, 129, 64, causal), Shape(1, 2, 4100, 128, causal)}) {
    SCOPED_TRACE(::testing::Message() << "B=" << shape.batch << " H=" << shape.heads
                                      << " N=" << shape.seq_len << " d=" << shape.head_dim);
    auto workload = device_->Prepare(
        MakeAttentionProblem(shape, dtype, kSeed, {CudaVariantsOf(dtype).back()}), NeverCancelled);
    ASSERT_TRUE(workload.ok()) << workload.status();
    const auto rows = kernels::SampleAttentionRows(shape, 200, kSeed);
    const std::vector<double> exact = kernels::AttentionReferenceRows(shape, kSeed, dtype, rows);
    const kernels::Tolerance tolerance = kernels::AttentionTolerances(dtype, shape).reference;
    const kernels::Comparison c =
        AgainstExact(ReadRows(**workload, proto::ops::OutputBuffer::kReference, shape, rows), exact,
                     shape, rows, tolerance.element);
    EXPECT_EQ(c.checked, uint64_t(rows.size() * size_t(shape.head_dim)));
    EXPECT_TRUE(c.Passes(tolerance))
        << "rel L2 " << c.rel_l2_error() << " (tolerance " << tolerance.rel_l2 << "), "
        << c.over_tolerance << " over, " << c.non_finite << " non-finite, worst element "
        << c.worst_index << " (" << c.worst_excess << " x its bound)";
  }
}

// Both variants through the workload: every element written and verified by
// the op's verifier, sampled rows within the variant's tolerance of the
// double reference, timed cold and hot (the hot sample replays a CUDA graph
// around cuBLAS and the kernels), and the timed runs' output verified too.
TEST_P(CudaAttentionDeviceDtypes, BothVariantsVerifiedAndTimedColdAndHot) {
  const auto [dtype, causal] = GetParam();
  const AttentionShape shape = Shape(2, 3, 300, 128, causal);
  const Problem problem = MakeAttentionProblem(shape, dtype, kSeed, CudaVariantsOf(dtype));
  auto workload = device_->Prepare(problem, NeverCancelled);
  ASSERT_TRUE(workload.ok()) << workload.status();
  const std::unique_ptr<proto::ops::Verifier> verifier =
      problem.op->MakeVerifier(problem.request, problem.dtype);
  // Every row: 600.
  const auto rows = kernels::SampleAttentionRows(shape, 1 << 20, kSeed);
  ASSERT_EQ(int64_t(rows.size()), shape.BatchHeads() * shape.seq_len);
  const std::vector<double> exact = kernels::AttentionReferenceRows(shape, kSeed, dtype, rows);
  const kernels::Tolerance tolerance = kernels::AttentionTolerances(dtype, shape).variant;
  auto check = [&](const char* when) {
    SCOPED_TRACE(when);
    auto verification = verifier->Check(**workload);
    ASSERT_TRUE(verification.ok()) << verification.status();
    EXPECT_TRUE(verification->passed()) << verification->failure();
    EXPECT_EQ(verification->elements_checked(), uint64_t(shape.TensorElements()));
    EXPECT_EQ(verification->non_finite(), 0u);
    const kernels::Comparison c =
        AgainstExact(ReadRows(**workload, proto::ops::OutputBuffer::kOutput, shape, rows), exact,
                     shape, rows, tolerance.element);
    EXPECT_EQ(c.checked, uint64_t(shape.TensorElements()));
    EXPECT_TRUE(c.Passes(tolerance))
        << "rel L2 " << c.rel_l2_error() << " (tolerance " << tolerance.rel_l2
        << "), worst element " << c.worst_index << " (" << c.worst_excess << " x its bound)";
  };
  for (int variant = 0; variant < int(problem.variants.size()); ++variant) {
    SCOPED_TRACE(problem.VariantName(size_t(variant)));
    ASSERT_TRUE((*workload)->PoisonOutput().ok());
    ASSERT_TRUE((*workload)->Run(variant).ok());
    check("untimed run");
    for (v1::TimingMode mode : {v1::TIMING_MODE_COLD, v1::TIMING_MODE_HOT}) {
      ASSERT_TRUE((*workload)->PoisonOutput().ok());
      auto ms = (*workload)->TimeSample(variant, mode);
      ASSERT_TRUE(ms.ok()) << ms.status();
      EXPECT_TRUE(std::isfinite(*ms) && *ms > 0) << *ms;
      // The timed runs computed the same function: their output passes.
      check(mode == v1::TIMING_MODE_COLD ? "cold sample" : "hot sample");
    }
  }
  EXPECT_TRUE(device_->Healthy());
}

// The device's comparison of every element is the host's over the same two
// buffers (Read kOutput and kReference): with a zero tolerance every element
// that differs at all is over it, so the counts and the worst (lowest
// differing) element must agree exactly. Then a corrupted output (poisoned
// after the run) is counted in full.
TEST_P(CudaAttentionDeviceDtypes, CompareWithReferenceCountsWhatTheHostCounts) {
  const auto [dtype, causal] = GetParam();
  const AttentionShape shape = Shape(2, 3, 77, 64, causal);
  const Problem problem = MakeAttentionProblem(shape, dtype, kSeed, CudaVariantsOf(dtype));
  auto workload = device_->Prepare(problem, NeverCancelled);
  ASSERT_TRUE(workload.ok()) << workload.status();
  const int64_t n = shape.TensorElements();
  for (int variant = 0; variant < int(problem.variants.size()); ++variant) {
    SCOPED_TRACE(problem.VariantName(size_t(variant)));
    ASSERT_TRUE((*workload)->PoisonOutput().ok());
    ASSERT_TRUE((*workload)->Run(variant).ok());
    std::vector<float> out(static_cast<size_t>(n)), ref(static_cast<size_t>(n));
    ASSERT_TRUE((*workload)->Read(proto::ops::OutputBuffer::kOutput, 0, out).ok());
    ASSERT_TRUE((*workload)->Read(proto::ops::OutputBuffer::kReference, 0, ref).ok());
    for (const kernels::ElementTolerance& tolerance :
         {kernels::ElementTolerance{0, 0},
          kernels::AttentionTolerances(dtype, shape).against_reference.element}) {
      SCOPED_TRACE(::testing::Message()
                   << "atol " << tolerance.atol << ", rtol " << tolerance.rtol);
      const kernels::Comparison host = kernels::Compare(out, ref, tolerance);
      auto device = (*workload)->CompareWithReference(tolerance);
      ASSERT_TRUE(device.ok()) << device.status();
      EXPECT_EQ(device->checked, uint64_t(n));
      EXPECT_EQ(device->checked, host.checked);
      EXPECT_EQ(device->non_finite, host.non_finite);
      EXPECT_EQ(device->over_tolerance, host.over_tolerance);
      EXPECT_EQ(device->max_abs_error, host.max_abs_error);
      EXPECT_NEAR(device->sum_sq_error, host.sum_sq_error, 1e-9 * host.sum_sq_error);
      EXPECT_NEAR(device->sum_sq_ref, host.sum_sq_ref, 1e-9 * host.sum_sq_ref);
      if (tolerance.atol == 0) {
        EXPECT_EQ(device->worst_index, host.worst_index);
      }
    }

    ASSERT_TRUE((*workload)->PoisonOutput().ok());
    const kernels::Tolerance against = kernels::AttentionTolerances(dtype, shape).against_reference;
    auto corrupted = (*workload)->CompareWithReference(against.element);
    ASSERT_TRUE(corrupted.ok()) << corrupted.status();
    EXPECT_EQ(corrupted->checked, uint64_t(n));
    EXPECT_EQ(corrupted->non_finite, uint64_t(n));
    EXPECT_EQ(corrupted->worst_index, 0);
    EXPECT_FALSE(corrupted->Passes(against));
  }
}

INSTANTIATE_TEST_SUITE_P(DtypesCausal, CudaAttentionDeviceDtypes,
                         ::testing::Combine(::testing::Values(DType::kFp32, DType::kFp16,
                                                              DType::kBf16, DType::kFp8),
                                            ::testing::Bool()),
                         [](const ::testing::TestParamInfo<std::tuple<DType, bool>>& info) {
                           return DTypeCausalName(std::get<0>(info.param), std::get<1>(info.param));
                         });

// The real path: RunJob on the opened device with the registry's op, both
// variants, every dtype x causal x head_dim, cold and hot, on a shape with
// odd N and batch * heads = 150 above the H200's 132 SMs. The runner
// verifies each variant before timing and again in the first and last
// rounds; every VariantResult must pass.
using RunJobCase = std::tuple<DType, bool, int64_t, v1::TimingMode>;
class CudaAttentionRunJob : public CudaAttentionDevice,
                            public ::testing::WithParamInterface<RunJobCase> {};

TEST_P(CudaAttentionRunJob, EveryVariantResultIsVerified) {
  const auto [dtype, causal, head_dim, mode] = GetParam();
  AdmittedRun run;
  run.problem = MakeAttentionProblem(Shape(3, 50, 129, head_dim, causal), dtype, kSeed);
  run.plan = ShortPlan();
  run.plan.mode = mode;
  testing::RecordingSink sink;
  const absl::Status status = worker::RunJob(*device_, run, "gpu-attention", sink);
  ASSERT_TRUE(status.ok()) << status;
  const std::vector<v1::RunEvent> events = sink.events();
  ASSERT_FALSE(events.empty());
  ASSERT_TRUE(events.front().has_started());
  EXPECT_EQ(events.front().started().backend(), "cuda");
  int results = 0;
  for (const v1::RunEvent& event : events) {
    if (!event.has_variant_result()) continue;
    ++results;
    const v1::VariantResult& result = event.variant_result();
    const v1::Verification& v = result.verification();
    EXPECT_TRUE(v.passed()) << result.variant() << ": " << v.failure();
    EXPECT_EQ(v.elements_checked(), uint64_t(3 * 50 * 129 * uint64_t(head_dim)));
    EXPECT_EQ(v.non_finite(), 0u);
    EXPECT_EQ(v.elements_over_tolerance(), 0u);
    EXPECT_GT(result.stats().samples(), 0u);
  }
  EXPECT_EQ(results, 2);
  ASSERT_TRUE(events.back().has_summary());
  EXPECT_TRUE(events.back().summary().all_verified());
  EXPECT_TRUE(device_->Healthy());
}

// A job of fused alone on `shape` in `mode`: its one result is verified in
// full, and its config (the plan's description) holds `config` when that
// is not empty.
void ExpectFusedJobVerified(worker::Device& device, const AttentionShape& shape, DType dtype,
                            v1::TimingMode mode, const std::string& config) {
  AdmittedRun run;
  run.problem = MakeAttentionProblem(shape, dtype, kSeed, {proto::ops::kAttentionFused});
  run.plan = ShortPlan();
  run.plan.mode = mode;
  testing::RecordingSink sink;
  const absl::Status status = worker::RunJob(device, run, "gpu-attention", sink);
  ASSERT_TRUE(status.ok()) << status;
  int results = 0;
  for (const v1::RunEvent& event : sink.events()) {
    if (!event.has_variant_result()) continue;
    ++results;
    const v1::Verification& v = event.variant_result().verification();
    EXPECT_TRUE(v.passed()) << v.failure();
    EXPECT_EQ(v.elements_checked(), uint64_t(shape.TensorElements()));
    EXPECT_EQ(v.non_finite(), 0u);
    if (!config.empty()) EXPECT_THAT(event.variant_result().config(), ::testing::HasSubstr(config));
  }
  EXPECT_EQ(results, 1);
}

// The same through the workload's own plan on a shape it splits (24 query
// blocks): the workspace is allocated with the workload, and the combine
// runs inside the hot mode's CUDA graph. The result says the keys were
// split, as the plan chose.
TEST_F(CudaAttentionDevice, SplitKvRunJobIsVerified) {
  for (DType dtype : {DType::kFp32, DType::kFp16, DType::kBf16})
    for (bool causal : {false, true})
      for (v1::TimingMode mode : {v1::TIMING_MODE_COLD, v1::TIMING_MODE_HOT}) {
        SCOPED_TRACE(DTypeCausalName(dtype, causal) +
                     (mode == v1::TIMING_MODE_HOT ? "_hot" : "_cold"));
        ExpectFusedJobVerified(*device_, Shape(1, 1, 3000, 128, causal), dtype, mode, "split-KV");
      }
  EXPECT_TRUE(device_->Healthy());
}

// The balanced tail through a job (on the H200's 132 SMs: 238 query blocks,
// the last 106 cut over the SMs), cold and hot: a hot sample replays a
// CUDA graph of back-to-back launches on one workspace, each starting from
// the counters the last one left.
TEST_F(CudaAttentionDevice, BalancedTailRunJobIsVerified) {
  const AttentionShape shape = Shape(2, 7, 2100, 128, false);
  int sms = 0;
  ASSERT_EQ(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0), cudaSuccess);
  for (DType dtype : {DType::kFp16, DType::kBf16})
    for (v1::TimingMode mode : {v1::TIMING_MODE_COLD, v1::TIMING_MODE_HOT}) {
      SCOPED_TRACE(DTypeCausalName(dtype, false) +
                   (mode == v1::TIMING_MODE_HOT ? "_hot" : "_cold"));
      const bool tail = kernels::cuda::PlanAttentionFused(shape, dtype, sms).balanced_tail;
      if (sms == 132 && kernels::cuda::WgmmaAttentionRuns(dtype)) EXPECT_TRUE(tail);
      ExpectFusedJobVerified(*device_, shape, dtype, mode, tail ? "balanced" : "");
    }
  EXPECT_TRUE(device_->Healthy());
}

INSTANTIATE_TEST_SUITE_P(
    DtypesCausalHeadDimsModes, CudaAttentionRunJob,
    ::testing::Combine(::testing::Values(DType::kFp32, DType::kFp16, DType::kBf16),
                       ::testing::Bool(),
                       ::testing::Values(int64_t(64), int64_t(96), int64_t(128), int64_t(256)),
                       ::testing::Values(v1::TIMING_MODE_COLD, v1::TIMING_MODE_HOT)),
    [](const ::testing::TestParamInfo<RunJobCase>& info) {
      return DTypeCausalName(std::get<0>(info.param), std::get<1>(info.param)) + "_d" +
             std::to_string(std::get<2>(info.param)) +
             (std::get<3>(info.param) == v1::TIMING_MODE_HOT ? "_hot" : "_cold");
    });

}  // namespace
}  // namespace kbench::server
