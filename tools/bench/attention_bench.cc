// kbench_attention_bench: the attention kernels of kernels/cuda/attention/attention.h
// on one GPU, outside the server, through the server's own pieces. For each
// point (attention_bench_flags.h) it makes the seeded inputs in the dtype
// and the workload of the point (attention_bench_workload.h, a CudaWorkload
// of the CUDA backend), and for each variant:
//   1. runs it once on a poisoned output and checks it with the attention
//      op's verifier, as the runner's step 2 does (proto/ops/attention/attention_op.h:
//      every element against the device reference, sampled rows against the
//      double reference, within kernels/attention/tolerances.h's
//      AttentionTolerances);
//   2. unless --once, times it with the workload's cold samples
//      (kernels::cuda_runtime::SampleTimer::Cold: the L2 flushed, the kernels'
//      own span on the device) over the budget of triton.testing.do_bench (the peers'
//      script): about 25 ms of warm-up and 100 ms of samples, the median
//      reported (server/worker/statistics.h's Quantile).
// TFLOP/s = AttentionShape::Flops() (4 B H N^2 d, halved when causal).
// One JSON object a line on stdout: the point, "ms", "tflops" and
// "cold_method" (SampleTimer::ColdMethod; none with --once), the verification's "rel_l2" (null when
// non-finite), "max_abs", "elements_checked", "non_finite", "over_tolerance", "ok" and "failure",
// and "fused_plan", the plan's description for the shape. A failed check
// sets the exit status to 1; a bad command line or any other error is
// printed on stderr and exits with 2. A progress line per point on stderr.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "kernels/common/status_macros.h"
#include "kernels/cuda_runtime/cublas_handle.h"
#include "kernels/cuda_runtime/cuda_status.h"
#include "kernels/cuda_runtime/l2_flusher.h"
#include "kernels/cuda_runtime/stream.h"
#include "nlohmann/json.hpp"
#include "proto/ops/attention/attention_op.h"
#include "proto/ops/dtypes.h"
#include "server/worker/statistics.h"
#include "tools/bench/attention_bench_flags.h"
#include "tools/bench/attention_bench_workload.h"
#include "tools/bench/attention_grid.h"

namespace kbench::tools::bench {
namespace {

using kernels::AttentionShape;
using kernels::DType;
using server::worker::backends::cuda::DeviceContext;

constexpr uint64_t kSeed = 20261129;

// The run request of a point, as the verifier reads it (shape and seed).
v1::RunRequest RequestOf(const AttentionShape& shape, DType dtype) {
  v1::RunRequest request;
  request.set_seed(kSeed);
  request.set_dtype(proto::ops::ToProto(dtype));
  v1::AttentionProblem* problem = request.mutable_attention();
  problem->set_batch(uint32_t(shape.batch));
  problem->set_heads(uint32_t(shape.heads));
  problem->set_seq_len(uint32_t(shape.seq_len));
  problem->set_head_dim(uint32_t(shape.head_dim));
  problem->set_causal(shape.causal);
  return request;
}

// Median of cold samples of `variant`, with do_bench's budget: ~25 ms of
// warm-up and ~100 ms of samples (5 to 1000), estimated from three samples.
absl::StatusOr<double> TimeMs(BenchAttention& workload, int variant) {
  auto sample = [&] { return workload.TimeSample(variant, v1::TIMING_MODE_COLD); };
  double estimate = 0;
  for (int i = 0; i < 3; ++i) {
    KBENCH_ASSIGN_OR_RETURN(estimate, sample());
  }
  const int warmup = std::clamp(int(25.0 / std::max(estimate, 1e-3)), 1, 100);
  for (int i = 0; i < warmup; ++i) {
    KBENCH_RETURN_IF_ERROR(sample().status());
  }
  const int reps = std::clamp(int(100.0 / std::max(estimate, 1e-3)), 5, 1000);
  std::vector<double> ms;
  for (int i = 0; i < reps; ++i) {
    KBENCH_ASSIGN_OR_RETURN(const double t, sample());
    ms.push_back(t);
  }
  std::sort(ms.begin(), ms.end());
  return server::worker::Quantile(ms, 0.5);
}

// The device's stream and L2 flusher, as the CUDA backend makes them.
absl::StatusOr<std::shared_ptr<DeviceContext>> MakeContext(const cudaDeviceProp& props) {
  KBENCH_ASSIGN_OR_RETURN(kernels::cuda_runtime::Stream stream,
                          kernels::cuda_runtime::Stream::Create());
  KBENCH_ASSIGN_OR_RETURN(kernels::cuda_runtime::L2Flusher flusher,
                          kernels::cuda_runtime::L2Flusher::Create(size_t(props.l2CacheSize)));
  return std::make_shared<DeviceContext>(0, std::move(stream), std::move(flusher));
}

// Checks and times every variant of one point, a JSON line each; the
// number that failed their check, and their progress in words.
absl::StatusOr<int> RunPoint(const Options& opt, std::shared_ptr<DeviceContext> context,
                             const AttentionShape& shape, DType dtype,
                             const AttentionInputs& inputs,
                             kernels::cuda_runtime::CublasHandle& cublas, std::string& progress) {
  KBENCH_ASSIGN_OR_RETURN(
      std::unique_ptr<BenchAttention> workload,
      BenchAttention::Create(std::move(context), shape, dtype, inputs, cublas, opt));
  const std::unique_ptr<proto::ops::Verifier> verifier =
      proto::ops::AttentionOp().MakeVerifier(RequestOf(shape, dtype), dtype);
  int failures = 0;
  for (int v = 0; v < int(workload->names().size()); ++v) {
    const std::string& name = workload->names()[size_t(v)];
    KBENCH_RETURN_IF_ERROR(workload->PoisonOutput());
    KBENCH_RETURN_IF_ERROR(workload->Run(v));
    KBENCH_ASSIGN_OR_RETURN(const v1::Verification check, verifier->Check(*workload));
    failures += !check.passed();
    nlohmann::ordered_json line = {
        {"source", "kbench"},         {"variant", name},       {"dtype", kernels::DTypeName(dtype)},
        {"batch", shape.batch},       {"heads", shape.heads},  {"seq_len", shape.seq_len},
        {"head_dim", shape.head_dim}, {"causal", shape.causal}};
    std::string ms_text = "checked";
    if (!opt.once) {
      KBENCH_ASSIGN_OR_RETURN(const double ms, TimeMs(*workload, v));
      line["ms"] = ms;
      line["tflops"] = shape.Flops() / (ms * 1e-3) / 1e12;
      line["cold_method"] = workload->TimingMethod(v1::TIMING_MODE_COLD);
      ms_text = absl::StrFormat("%.3f ms", ms);
    }
    line["rel_l2"] = check.rel_l2_error();  // null when not finite
    line["max_abs"] = check.max_abs_error();
    line["elements_checked"] = check.elements_checked();
    line["non_finite"] = check.non_finite();
    line["over_tolerance"] = check.elements_over_tolerance();
    line["ok"] = check.passed();
    line["failure"] = check.failure();
    line["fused_plan"] = workload->fused_plan();
    std::printf("%s\n", line.dump().c_str());
    std::fflush(stdout);
    absl::StrAppend(&progress, progress.empty() ? "" : ", ", name, " ", ms_text,
                    check.passed() ? "" : " FAIL");
  }
  return failures;
}

// Runs every point; the number of variants that failed their check.
absl::StatusOr<int> Run(const Options& opt) {
  cudaDeviceProp props{};
  KBENCH_CUDA_RETURN_IF_ERROR(cudaGetDeviceProperties(&props, 0));
  std::fprintf(stderr, "device: %s, %d SMs\n", props.name, props.multiProcessorCount);
  KBENCH_ASSIGN_OR_RETURN(std::shared_ptr<DeviceContext> context, MakeContext(props));
  KBENCH_ASSIGN_OR_RETURN(kernels::cuda_runtime::CublasHandle cublas,
                          kernels::cuda_runtime::CublasHandle::Create());
  int failures = 0;
  const size_t points = opt.dtypes.size() * opt.shapes.size() * opt.causal.size();
  size_t point = 0;
  const auto start = std::chrono::steady_clock::now();
  for (DType dtype : opt.dtypes) {
    for (AttentionShape shape : opt.shapes) {
      KBENCH_ASSIGN_OR_RETURN(
          const AttentionInputs inputs,
          MakeAttentionInputs(*context, shape, dtype, kSeed, opt.Selected("naive")));
      for (bool causal : opt.causal) {
        shape.causal = causal;
        std::string progress;
        KBENCH_ASSIGN_OR_RETURN(const int failed,
                                RunPoint(opt, context, shape, dtype, inputs, cublas, progress));
        failures += failed;
        std::fprintf(
            stderr, "[%zu/%zu] %s %lld %lld %lld %lld %d: %s (%.0f s)\n", ++point, points,
            kernels::DTypeName(dtype), (long long)shape.batch, (long long)shape.heads,
            (long long)shape.seq_len, (long long)shape.head_dim, int(causal), progress.c_str(),
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
      }
    }
  }
  return failures;
}

}  // namespace
}  // namespace kbench::tools::bench

int main(int argc, char** argv) {
  namespace bench = kbench::tools::bench;
  const absl::StatusOr<bench::Options> options = bench::ParseFlags(argc, argv);
  if (absl::IsCancelled(options.status())) {  // --help
    std::printf("%s", std::string(options.status().message()).c_str());
    return 0;
  }
  if (options.ok() && options->print_grid) {
    std::printf("%s", bench::GridJson().c_str());
    return 0;
  }
  if (options.ok() && options->list) {
    std::printf("%s", bench::PointLines(*options).c_str());
    return 0;
  }
  const absl::StatusOr<int> failures =
      options.ok() ? bench::Run(*options) : absl::StatusOr<int>(options.status());
  if (!failures.ok()) {
    std::fprintf(stderr, "kbench_attention_bench: %s\n", failures.status().ToString().c_str());
    return 2;
  }
  return *failures > 0 ? 1 : 0;
}
