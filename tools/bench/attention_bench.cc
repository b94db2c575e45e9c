// kbench_attention_bench: the attention kernels of kernels/cuda/attention.h
// on one GPU, outside the server. For each shape it makes the seeded inputs
// in the dtype, runs every variant once on a NaN-poisoned output, checks a
// sample of rows against the double reference (kernels/reference.h) within
// the variant tolerance of kernels/tolerances.h (AttentionTolerances), then
// times it with the server's cold samples (kbench::cuda::SampleTimer::Cold:
// the L2 flushed by writing twice its size, CUDA events around the kernels
// only) over the budget of triton.testing.do_bench (the peers' script):
// about 25 ms of warm-up and 100 ms of samples, the median reported.
// TFLOP/s = AttentionShape::Flops() (4 B H N^2 d, halved when causal).
//
// Usage: kbench_attention_bench [--grid] [--shapes B,H,N,D;...]
//          [--shape B,H,N,D] [--dtypes fp16,bf16,fp32] [--dims D,...]
//          [--causal 0|1|both] [--mma-configs] [--check-rows R] [--list]
//          [--variants NAME,...] [--splits S,...] [--once]
//   --grid: the FlashAttention benchmark grid, B N = 16384, H d = 2048,
//           d in {64, 128, 256}, N in {512, ..., 16384}, causal and not;
//           --shapes and --shape add shapes after it (tools/bench/
//           attention_grid.py holds the low-parallelism ones).
//   --dtypes (default all three) and --dims (default every d) select a
//           subset, so that a run can be split over calls; the points are
//           dtype by dtype, shape by shape, causal last, exactly those that
//           tools/bench/attention_peers.py runs with the same flags.
//   --list: print the points ("fp16 32 32 512 64 0": dtype B H N d causal),
//           one a line, and time nothing (no GPU needed).
//   --mma-configs: time every kernel and tiling of fused as fused-<config>
//           too (on Hopper the wgmma kernel's configs, and everywhere
//           the mma.sync tilings; fp32: fused-fp32-<config>), each in one pass
//           (no split keys).
//   --variants: run only the variants of these names (naive, fused,
//           fused-1pass, fused-notail, fused-<config>; default all).
//           Without naive, its scores buffer is freed before anything runs.
//   --splits: time fused with each of these key splits too, as
//           fused-split<S> (S from 1 to kMaxKvSplits, attention_split_kv.h):
//           the data a change of SplitKvSplits's rule is measured on.
//   --once: run each selected variant once with its check and time
//           nothing: the JSON line has "ok" and no "ms" nor "tflops" (for a
//           profiler: tools/bench/attention_ncu.sh).
// fused runs as PlanAttentionFused says for the device's SMs; where that
// splits the keys, fused-1pass (the same tiling, no split) is timed too,
// and where it balances the last round over the SMs, fused-notail (the
// same plan without it).
// Every line carries "fused_plan", the plan's description for the shape.
// One JSON object a line on stdout; a failed check sets "ok": false and the
// exit status to 1 ("non_finite" and "over_tolerance" count the checked
// elements that failed; "rel_l2" is null when any was non-finite). A
// progress line per point on stderr. Any other error is printed on stderr
// and exits with 2.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <future>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "kernels/attention_shape.h"
#include "kernels/cuda/attention.h"
#include "kernels/cuda/attention_fused_mma.h"
#include "kernels/cuda/attention_fused_wgmma.h"
#include "kernels/cuda/attention_split_kv.h"
#include "kernels/cuda/seeded_fill.h"
#include "kernels/dtype.h"
#include "kernels/reference.h"
#include "kernels/tolerances.h"
#include "kernels/verify.h"
#include "kernels/cuda_runtime/cublas_handle.h"
#include "kernels/cuda_runtime/cuda_status.h"
#include "kernels/cuda_runtime/device_buffer.h"
#include "kernels/cuda_runtime/l2_flusher.h"
#include "kernels/cuda_runtime/sample_timer.h"
#include "kernels/cuda_runtime/stream.h"
#include "kernels/common/status_macros.h"

namespace kbench::tools {
namespace {

using cuda::DeviceBuffer;
using kernels::AttentionRow;
using kernels::AttentionShape;
using kernels::DType;

constexpr uint64_t kSeed = 20261129;

struct Options {
  std::vector<DType> dtypes = {DType::kFp16, DType::kBf16, DType::kFp32};
  std::vector<AttentionShape> shapes;  // the grid's, then the listed ones
  std::vector<bool> causal = {false, true};
  bool mma_configs = false;
  int check_rows = 16;
  bool list = false;
  std::vector<std::string> variants;  // empty: all
  std::vector<int> splits;             // --splits
  bool once = false;

  bool Selected(const std::string& name) const {
    return variants.empty() ||
           std::find(variants.begin(), variants.end(), name) != variants.end();
  }
};

absl::StatusOr<DType> ParseDType(const std::string& s) {
  for (DType dtype : {DType::kFp32, DType::kFp16, DType::kBf16})
    if (s == kernels::DTypeName(dtype)) return dtype;
  return absl::InvalidArgumentError(absl::StrCat("unknown dtype ", s));
}

absl::StatusOr<int64_t> ParseInt(const std::string& flag,
                                 const std::string& s) {
  int64_t value = 0;
  if (!absl::SimpleAtoi(s, &value))
    return absl::InvalidArgumentError(
        absl::StrCat(flag, ": '", s, "' is not an integer"));
  return value;
}

// "B,H,N,D", the value of `flag`.
absl::StatusOr<AttentionShape> ParseShape(const std::string& flag,
                                          const std::string& value) {
  const std::vector<std::string> v = absl::StrSplit(value, ',');
  if (v.size() != 4)
    return absl::InvalidArgumentError(
        absl::StrCat(flag, ": '", value, "' is not B,H,N,D"));
  AttentionShape s;
  KBENCH_ASSIGN_OR_RETURN(s.batch, ParseInt(flag, v[0]));
  KBENCH_ASSIGN_OR_RETURN(s.heads, ParseInt(flag, v[1]));
  KBENCH_ASSIGN_OR_RETURN(s.seq_len, ParseInt(flag, v[2]));
  KBENCH_ASSIGN_OR_RETURN(s.head_dim, ParseInt(flag, v[3]));
  return s;
}

absl::StatusOr<Options> Parse(int argc, char** argv) {
  Options o;
  bool grid = false;
  std::vector<AttentionShape> listed;
  std::vector<int64_t> dims;  // empty: every d
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> absl::StatusOr<std::string> {
      if (i + 1 >= argc)
        return absl::InvalidArgumentError(absl::StrCat(a, " needs a value"));
      return std::string(argv[++i]);
    };
    if (a == "--grid") {
      grid = true;
    } else if (a == "--dtypes") {
      KBENCH_ASSIGN_OR_RETURN(const std::string list, next());
      o.dtypes.clear();
      for (const std::string& d :
           std::vector<std::string>(absl::StrSplit(list, ','))) {
        KBENCH_ASSIGN_OR_RETURN(DType dtype, ParseDType(d));
        o.dtypes.push_back(dtype);
      }
    } else if (a == "--shape" || a == "--shapes") {
      KBENCH_ASSIGN_OR_RETURN(const std::string value, next());
      for (const std::string& item : std::vector<std::string>(
               absl::StrSplit(value, ';', absl::SkipEmpty()))) {
        KBENCH_ASSIGN_OR_RETURN(const AttentionShape s, ParseShape(a, item));
        listed.push_back(s);
      }
    } else if (a == "--dims") {
      KBENCH_ASSIGN_OR_RETURN(const std::string list, next());
      for (const std::string& item :
           std::vector<std::string>(absl::StrSplit(list, ','))) {
        KBENCH_ASSIGN_OR_RETURN(const int64_t d, ParseInt(a, item));
        dims.push_back(d);
      }
    } else if (a == "--causal") {
      KBENCH_ASSIGN_OR_RETURN(const std::string c, next());
      o.causal = c == "both" ? std::vector<bool>{false, true}
                             : std::vector<bool>{c == "1"};
    } else if (a == "--mma-configs") {
      o.mma_configs = true;
    } else if (a == "--list") {
      o.list = true;
    } else if (a == "--once") {
      o.once = true;
    } else if (a == "--variants") {
      KBENCH_ASSIGN_OR_RETURN(const std::string list, next());
      for (const std::string& name : std::vector<std::string>(
               absl::StrSplit(list, ',', absl::SkipEmpty()))) {
        if (name != "naive" && name != "fused" && !name.starts_with("fused-"))
          return absl::InvalidArgumentError(
              absl::StrCat("--variants: unknown variant ", name));
        o.variants.push_back(name);
      }
    } else if (a == "--splits") {
      KBENCH_ASSIGN_OR_RETURN(const std::string list, next());
      for (const std::string& item : std::vector<std::string>(
               absl::StrSplit(list, ',', absl::SkipEmpty()))) {
        KBENCH_ASSIGN_OR_RETURN(const int64_t splits, ParseInt(a, item));
        if (splits < 1 || splits > kernels::cuda::kMaxKvSplits)
          return absl::InvalidArgumentError(
              absl::StrCat("--splits: ", splits, " is outside 1 to ",
                           kernels::cuda::kMaxKvSplits));
        o.splits.push_back(int(splits));
      }
    } else if (a == "--check-rows") {
      KBENCH_ASSIGN_OR_RETURN(const std::string value, next());
      KBENCH_ASSIGN_OR_RETURN(const int64_t rows, ParseInt(a, value));
      o.check_rows = int(rows);
    } else {
      return absl::InvalidArgumentError(absl::StrCat("unknown argument ", a));
    }
  }
  if (grid) {
    for (int d : {64, 128, 256})
      for (int n : {512, 1024, 2048, 4096, 8192, 16384}) {
        AttentionShape s;
        s.batch = 16384 / n;
        s.heads = 2048 / d;
        s.seq_len = n;
        s.head_dim = d;
        o.shapes.push_back(s);
      }
  }
  o.shapes.insert(o.shapes.end(), listed.begin(), listed.end());
  if (!dims.empty())
    std::erase_if(o.shapes, [&dims](const AttentionShape& s) {
      return std::find(dims.begin(), dims.end(), s.head_dim) == dims.end();
    });
  return o;
}

// The points in the order Run times them, as --list prints them.
void List(const Options& opt) {
  for (DType dtype : opt.dtypes)
    for (const AttentionShape& s : opt.shapes)
      for (bool causal : opt.causal)
        std::printf("%s %lld %lld %lld %lld %d\n", kernels::DTypeName(dtype),
                    (long long)s.batch, (long long)s.heads,
                    (long long)s.seq_len, (long long)s.head_dim, int(causal));
}

// Reference rows, batch-heads spread over threads.
std::vector<double> Reference(const AttentionShape& shape, DType dtype,
                              const std::vector<AttentionRow>& rows) {
  std::map<int64_t, std::vector<AttentionRow>> by_head;
  for (const auto& r : rows) by_head[r.batch_head].push_back(r);
  std::vector<std::future<std::vector<double>>> parts;
  for (const auto& [bh, group] : by_head)
    parts.push_back(std::async(std::launch::async, [&shape, dtype, group] {
      return kernels::AttentionReferenceRows(shape, kSeed, dtype, group);
    }));
  std::vector<double> out;
  for (auto& p : parts) {
    const auto v = p.get();
    out.insert(out.end(), v.begin(), v.end());
  }
  return out;  // by_head order is rows' order: SampleAttentionRows groups them
}

float ToFloat(DType dtype, const void* p, size_t i) {
  switch (dtype) {
    case DType::kFp32:
      return static_cast<const float*>(p)[i];
    case DType::kFp16:
      return kernels::HalfBitsToFloat(static_cast<const uint16_t*>(p)[i]);
    case DType::kBf16:
      return kernels::Bf16BitsToFloat(static_cast<const uint16_t*>(p)[i]);
  }
  return NAN;
}

// The sampled rows of `o` against their reference, each element within
// `tolerance` (elements indexed by their place in O).
absl::StatusOr<kernels::Comparison> Check(
    const AttentionShape& shape, DType dtype, const DeviceBuffer& o,
    const std::vector<AttentionRow>& rows, const std::vector<double>& ref,
    const kernels::ElementTolerance& tolerance, const cuda::Stream& stream) {
  const int64_t d = shape.head_dim;
  const size_t row_bytes = size_t(d) * size_t(kernels::DTypeBytes(dtype));
  std::vector<unsigned char> host(rows.size() * row_bytes);
  for (size_t r = 0; r < rows.size(); ++r) {
    const size_t first =
        size_t(rows[r].batch_head * shape.seq_len + rows[r].row) * row_bytes;
    KBENCH_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(
        host.data() + r * row_bytes, o.as<unsigned char>() + first, row_bytes,
        cudaMemcpyDeviceToHost, stream.get()));
  }
  KBENCH_RETURN_IF_ERROR(stream.Synchronize());
  kernels::Comparison comparison;
  for (size_t r = 0; r < rows.size(); ++r) {
    const int64_t first = (rows[r].batch_head * shape.seq_len + rows[r].row) * d;
    for (int64_t x = 0; x < d; ++x)
      comparison.Add(first + x,
                     ToFloat(dtype, host.data(), r * size_t(d) + size_t(x)),
                     ref[r * size_t(d) + size_t(x)], tolerance);
  }
  return comparison;
}

// A JSON number, or null for NaN and infinity (a non-finite output makes
// the relative L2 error infinite), which JSON cannot spell.
std::string JsonNumber(double x) {
  if (!std::isfinite(x)) return "null";
  char text[32];
  std::snprintf(text, sizeof(text), "%.3g", x);
  return text;
}

using Enqueue = std::function<absl::Status(cudaStream_t)>;

// Median of cold samples, with do_bench's budget: ~25 ms of warm-up and
// ~100 ms of samples (5 to 1000), estimated from three samples.
absl::StatusOr<double> TimeMs(cuda::SampleTimer& timer, const Enqueue& call) {
  double estimate = 0;
  for (int i = 0; i < 3; ++i) {
    KBENCH_ASSIGN_OR_RETURN(estimate, timer.Cold(call));
  }
  const int warmup = std::clamp(int(25.0 / std::max(estimate, 1e-3)), 1, 100);
  for (int i = 0; i < warmup; ++i) {
    KBENCH_RETURN_IF_ERROR(timer.Cold(call).status());
  }
  const int reps = std::clamp(int(100.0 / std::max(estimate, 1e-3)), 5, 1000);
  std::vector<double> t;
  for (int i = 0; i < reps; ++i) {
    KBENCH_ASSIGN_OR_RETURN(const double ms, timer.Cold(call));
    t.push_back(ms);
  }
  std::sort(t.begin(), t.end());
  return reps % 2 ? t[reps / 2] : (t[reps / 2 - 1] + t[reps / 2]) / 2;
}

const char* ConfigName(kernels::cuda::MmaConfig c) {
  using kernels::cuda::MmaConfig;
  switch (c) {
    case MmaConfig::kWarps4Rows32:
      return "fused-w4r32";
    case MmaConfig::kWarps8Rows16:
      return "fused-w8r16";
    case MmaConfig::kWarps4Rows32Narrow:
      return "fused-w4r32n";
  }
  return "?";
}

// The inputs of one dtype and shape on the device, and the scores of naive
// (empty when they do not fit: naive is then left out).
struct Tensors {
  DeviceBuffer q, k, v, o, scores;
};

// fused's plan for a shape and the workspace it needs; the workspace of
// --splits apart (their partials would overwrite the plan's counters).
struct FusedRun {
  kernels::cuda::FusedAttentionPlan plan;
  DeviceBuffer workspace, split_workspace;
};

// The plan, and a workspace for it and for each of `splits` (--splits).
absl::StatusOr<FusedRun> MakeFusedRun(const AttentionShape& shape, DType dtype,
                                      int num_sms,
                                      const std::vector<int>& splits) {
  FusedRun f;
  f.plan = kernels::cuda::PlanAttentionFused(shape, dtype, num_sms);
  if (f.plan.workspace_bytes > 0) {
    KBENCH_ASSIGN_OR_RETURN(f.workspace,
                            DeviceBuffer::Allocate(size_t(f.plan.workspace_bytes)));
    KBENCH_CUDA_RETURN_IF_ERROR(cudaMemset(f.workspace.get(), 0,
                                           size_t(f.plan.workspace_zeroed_bytes)));
  }
  int64_t bytes = 0;
  for (int s : splits)
    bytes = std::max(bytes, kernels::cuda::SplitKvWorkspaceBytes(shape, s));
  if (bytes > 0) {
    KBENCH_ASSIGN_OR_RETURN(f.split_workspace, DeviceBuffer::Allocate(size_t(bytes)));
  }
  return f;
}

absl::StatusOr<Tensors> MakeTensors(const AttentionShape& shape, DType dtype,
                                    const cuda::Stream& stream) {
  const size_t element = size_t(kernels::DTypeBytes(dtype));
  const size_t bytes = size_t(shape.TensorElements()) * element;
  Tensors t;
  KBENCH_ASSIGN_OR_RETURN(t.q, DeviceBuffer::Allocate(bytes));
  KBENCH_ASSIGN_OR_RETURN(t.k, DeviceBuffer::Allocate(bytes));
  KBENCH_ASSIGN_OR_RETURN(t.v, DeviceBuffer::Allocate(bytes));
  KBENCH_ASSIGN_OR_RETURN(t.o, DeviceBuffer::Allocate(bytes));
  using kernels::InputStream;
  for (auto [buffer, input] :
       {std::pair{&t.q, InputStream::kQ}, std::pair{&t.k, InputStream::kK},
        std::pair{&t.v, InputStream::kV}}) {
    KBENCH_CUDA_RETURN_IF_ERROR(
        kernels::cuda::LaunchFillSeeded(dtype, kSeed, input, 0, buffer->get(),
                                        shape.TensorElements(), stream.get()));
  }
  absl::StatusOr<DeviceBuffer> scores =
      DeviceBuffer::Allocate(size_t(shape.ScoreElements()) * element);
  if (scores.ok()) {
    t.scores = *std::move(scores);
  } else if (absl::IsResourceExhausted(scores.status())) {
    std::fprintf(stderr, "naive left out: %s\n",
                 std::string(scores.status().message()).c_str());
  } else {
    return scores.status();
  }
  KBENCH_RETURN_IF_ERROR(stream.Synchronize());
  return t;
}

// The variants timed for one problem, by name.
std::vector<std::pair<std::string, Enqueue>> Variants(
    const Options& opt, const AttentionShape& shape, DType dtype,
    const Tensors& t, const FusedRun& f, cuda::CublasHandle& cublas) {
  namespace kc = kernels::cuda;
  const kc::AttentionTensors x{t.q.get(), t.k.get(), t.v.get(), t.o.get(),
                               f.workspace.get()};
  std::vector<std::pair<std::string, Enqueue>> variants;
  if (t.scores.get() != nullptr) {
    variants.push_back(
        {"naive", [&, shape, dtype](cudaStream_t stream) -> absl::Status {
           KBENCH_RETURN_IF_ERROR(cublas.Bind(stream));
           KBENCH_CUBLAS_RETURN_IF_ERROR(
               kc::AttentionScoresGemm(cublas.get(), shape, dtype, t.q.get(),
                                       t.k.get(), t.scores.get()));
           KBENCH_CUDA_RETURN_IF_ERROR(kc::LaunchAttentionSoftmax(
               shape, dtype, t.scores.get(), stream));
           KBENCH_CUBLAS_RETURN_IF_ERROR(
               kc::AttentionOutputGemm(cublas.get(), shape, dtype,
                                       t.scores.get(), t.v.get(), t.o.get()));
           return absl::OkStatus();
         }});
  }
  variants.push_back(
      {"fused", [shape, dtype, x, plan = f.plan](cudaStream_t stream) -> absl::Status {
         KBENCH_CUDA_RETURN_IF_ERROR(
             kc::LaunchAttentionFused(shape, dtype, x, plan, stream));
         return absl::OkStatus();
       }});
  if (f.plan.splits > 1) {
    variants.push_back(
        {"fused-1pass", [shape, dtype, x](cudaStream_t stream) -> absl::Status {
           KBENCH_CUDA_RETURN_IF_ERROR(kc::LaunchAttentionFused(
               shape, dtype, x, kc::FusedAttentionPlan{}, stream));
           return absl::OkStatus();
         }});
  }
  if (f.plan.balanced_tail) {
    kc::FusedAttentionPlan plan = f.plan;
    plan.balanced_tail = false;
    variants.push_back(
        {"fused-notail", [shape, dtype, x, plan](cudaStream_t stream) -> absl::Status {
           KBENCH_CUDA_RETURN_IF_ERROR(
               kc::LaunchAttentionFused(shape, dtype, x, plan, stream));
           return absl::OkStatus();
         }});
  }
  const kc::AttentionTensors split_x{t.q.get(), t.k.get(), t.v.get(), t.o.get(),
                                     f.split_workspace.get()};
  for (int s : opt.splits) {
    kc::FusedAttentionPlan plan;
    plan.splits = s;
    plan.workspace_bytes = kc::SplitKvWorkspaceBytes(shape, s);
    variants.push_back(
        {absl::StrCat("fused-split", s),
         [shape, dtype, split_x, plan](cudaStream_t stream) -> absl::Status {
           KBENCH_CUDA_RETURN_IF_ERROR(
               kc::LaunchAttentionFused(shape, dtype, split_x, plan, stream));
           return absl::OkStatus();
         }});
  }
  if (opt.mma_configs && dtype == DType::kFp32) {
    for (auto [c, label] :
         {std::pair{kc::Fp32Config::kWarps8Rows16, "fused-fp32-w8r16"},
          std::pair{kc::Fp32Config::kWarps4Rows16, "fused-fp32-w4r16"},
          std::pair{kc::Fp32Config::kWarps4Rows32, "fused-fp32-w4r32"}}) {
      variants.push_back(
          {label, [shape, x, c](cudaStream_t stream) -> absl::Status {
             KBENCH_CUDA_RETURN_IF_ERROR(
                 kc::LaunchAttentionFusedFp32(shape, x, c, 1, stream));
             return absl::OkStatus();
           }});
    }
  }
  if (opt.mma_configs && dtype != DType::kFp32) {
    // The wgmma kernel in each config (where the device runs it), one pass,
    // then the mma.sync kernel's tilings.
    if (kc::WgmmaAttentionRuns(dtype))
      for (auto [config, name] :
           {std::pair{kc::WgmmaConfig::kFree, "fused-wgmma-free"},
            std::pair{kc::WgmmaConfig::kPingPong, "fused-wgmma-pingpong"}})
        variants.push_back(
            {name, [shape, dtype, x, config](cudaStream_t stream) -> absl::Status {
               KBENCH_CUDA_RETURN_IF_ERROR(
                   kc::LaunchAttentionFusedWgmma(shape, dtype, x, 1, config, false, stream));
               return absl::OkStatus();
             }});
    for (kc::MmaConfig c :
         {kc::MmaConfig::kWarps4Rows32, kc::MmaConfig::kWarps8Rows16,
          kc::MmaConfig::kWarps4Rows32Narrow}) {
      variants.push_back(
          {ConfigName(c),
           [shape, dtype, x, c](cudaStream_t stream) -> absl::Status {
             KBENCH_CUDA_RETURN_IF_ERROR(
                 kc::LaunchAttentionFusedMma(shape, dtype, x, c, 1, stream));
             return absl::OkStatus();
           }});
    }
  }
  return variants;
}

// Runs every problem and prints one JSON line per variant; the number of
// variants that failed their check.
absl::StatusOr<int> Run(const Options& opt) {
  cudaDeviceProp props{};
  KBENCH_CUDA_RETURN_IF_ERROR(cudaGetDeviceProperties(&props, 0));
  std::fprintf(stderr, "device: %s, %d SMs\n", props.name,
               props.multiProcessorCount);
  KBENCH_ASSIGN_OR_RETURN(cuda::Stream stream, cuda::Stream::Create());
  KBENCH_ASSIGN_OR_RETURN(cuda::L2Flusher flusher,
                          cuda::L2Flusher::Create(size_t(props.l2CacheSize)));
  KBENCH_ASSIGN_OR_RETURN(cuda::CublasHandle cublas,
                          cuda::CublasHandle::Create());
  KBENCH_ASSIGN_OR_RETURN(cuda::SampleTimer timer,
                          cuda::SampleTimer::Create(stream.get(), &flusher));
  int failures = 0;
  const size_t points =
      opt.dtypes.size() * opt.shapes.size() * opt.causal.size();
  size_t point = 0;
  const auto start = std::chrono::steady_clock::now();
  for (DType dtype : opt.dtypes) {
    for (AttentionShape shape : opt.shapes) {
      KBENCH_ASSIGN_OR_RETURN(Tensors t, MakeTensors(shape, dtype, stream));
      // Unused memory out of the way (a profiler saves and restores it all).
      if (!opt.Selected("naive")) t.scores = DeviceBuffer();
      for (bool causal : opt.causal) {
        shape.causal = causal;
        KBENCH_ASSIGN_OR_RETURN(
            const FusedRun f,
            MakeFusedRun(shape, dtype, props.multiProcessorCount, opt.splits));
        const auto rows =
            kernels::SampleAttentionRows(shape, opt.check_rows, kSeed);
        const auto ref = Reference(shape, dtype, rows);
        // A variant against the exact result (kernels/tolerances.h).
        const kernels::Tolerance tolerance =
            kernels::AttentionTolerances(dtype, shape).variant;
        std::string progress;
        for (const auto& [name, call] :
             Variants(opt, shape, dtype, t, f, cublas)) {
          if (!opt.Selected(name)) continue;
          // All bytes 0xFF: NaN in fp32, fp16 and bf16 alike.
          KBENCH_CUDA_RETURN_IF_ERROR(
              cudaMemsetAsync(t.o.get(), 0xFF, t.o.bytes(), stream.get()));
          KBENCH_RETURN_IF_ERROR(call(stream.get()));
          KBENCH_ASSIGN_OR_RETURN(
              const kernels::Comparison err,
              Check(shape, dtype, t.o, rows, ref, tolerance.element, stream));
          const bool ok = err.Passes(tolerance);
          failures += !ok;
          char timing[64] = "";  // none with --once
          char ms_text[32] = "checked";
          if (!opt.once) {
            KBENCH_ASSIGN_OR_RETURN(const double ms, TimeMs(timer, call));
            std::snprintf(timing, sizeof(timing),
                          "\"ms\":%.5f,\"tflops\":%.2f,", ms,
                          shape.Flops() / (ms * 1e-3) / 1e12);
            std::snprintf(ms_text, sizeof(ms_text), "%.3f ms", ms);
          }
          std::printf(
              "{\"source\":\"kbench\",\"variant\":\"%s\",\"dtype\":\"%s\","
              "\"batch\":%lld,\"heads\":%lld,\"seq_len\":%lld,"
              "\"head_dim\":%lld,\"causal\":%s,%s"
              "\"rel_l2\":%s,\"max_abs\":%.3g,\"rows_checked\":%zu,"
              "\"non_finite\":%llu,\"over_tolerance\":%llu,\"ok\":%s,"
              "\"fused_plan\":\"%s\"}\n",
              name.c_str(), kernels::DTypeName(dtype), (long long)shape.batch,
              (long long)shape.heads, (long long)shape.seq_len,
              (long long)shape.head_dim, causal ? "true" : "false", timing,
              JsonNumber(err.rel_l2_error()).c_str(), err.max_abs_error,
              rows.size(), (unsigned long long)err.non_finite,
              (unsigned long long)err.over_tolerance, ok ? "true" : "false",
              f.plan.description.c_str());
          std::fflush(stdout);
          absl::StrAppend(&progress, progress.empty() ? "" : ", ", name, " ",
                          ms_text, ok ? "" : " FAIL");
        }
        std::fprintf(
            stderr, "[%zu/%zu] %s %lld %lld %lld %lld %d: %s (%.0f s)\n",
            ++point, points, kernels::DTypeName(dtype), (long long)shape.batch,
            (long long)shape.heads, (long long)shape.seq_len,
            (long long)shape.head_dim, int(causal), progress.c_str(),
            std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                          start)
                .count());
      }
    }
  }
  return failures;
}

}  // namespace
}  // namespace kbench::tools

int main(int argc, char** argv) {
  const absl::StatusOr<kbench::tools::Options> options =
      kbench::tools::Parse(argc, argv);
  if (options.ok() && options->list) {
    kbench::tools::List(*options);
    return 0;
  }
  const absl::StatusOr<int> failures =
      options.ok() ? kbench::tools::Run(*options)
                   : absl::StatusOr<int>(options.status());
  if (!failures.ok()) {
    std::fprintf(stderr, "kbench_attention_bench: %s\n",
                 failures.status().ToString().c_str());
    return 2;
  }
  return *failures > 0 ? 1 : 0;
}
