// kbench_attention_bench: the attention kernels of kernels/cuda/attention.h
// on one GPU, outside the server. For each shape it makes the seeded inputs
// in the dtype, runs every variant once on a NaN-poisoned output, checks a
// sample of rows against the double reference (kernels/reference.h), then
// times it the way triton.testing.do_bench does (the peers' script): CUDA
// events around one call, the L2 cleared by a 256 MiB memset before each,
// about 25 ms of warm-up and 100 ms of samples, the median reported.
// TFLOP/s = AttentionShape::Flops() (4 B H N^2 d, halved when causal).
//
// Usage: kbench_attention_bench [--grid] [--dtypes fp16,fp32,...]
//          [--shape B,H,N,D] [--causal 0|1|both] [--mma-configs]
//          [--check-rows R]
//   --grid: the FlashAttention benchmark grid, B N = 16384, H d = 2048,
//           d in {64, 128}, N in {512, ..., 16384}, causal and not.
//   --mma-configs: time every tiling of the fused kernels as fused-<config>
//           too (tensor-core tilings; fp32 unroll depths).
// One JSON object a line on stdout; a failed check sets "ok": false and the
// exit status to 1.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <future>
#include <map>
#include <string>
#include <vector>

#include "kernels/attention_shape.h"
#include "kernels/cuda/attention.h"
#include "kernels/cuda/attention_fused_mma.h"
#include "kernels/cuda/seeded_fill.h"
#include "kernels/dtype.h"
#include "kernels/reference.h"
#include "kernels/verify.h"

namespace kbench::kernels::cuda {
namespace {

constexpr uint64_t kSeed = 20261129;
constexpr size_t kFlushBytes = size_t(256) << 20;

#define CHECK_CUDA(expr)                                                   \
  do {                                                                     \
    const cudaError_t e_ = (expr);                                         \
    if (e_ != cudaSuccess) {                                               \
      std::fprintf(stderr, "%s failed at %s:%d: %s\n", #expr, __FILE__,    \
                   __LINE__, cudaGetErrorString(e_));                      \
      std::exit(2);                                                        \
    }                                                                      \
  } while (0)

struct Buffer {
  explicit Buffer(size_t bytes) : bytes(bytes) {
    if (cudaMalloc(&ptr, bytes) != cudaSuccess) {
      cudaGetLastError();
      ptr = nullptr;
    }
  }
  ~Buffer() {
    if (ptr) cudaFree(ptr);
  }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  void* ptr = nullptr;
  size_t bytes;
};

struct Options {
  bool grid = false;
  std::vector<DType> dtypes = {DType::kFp16, DType::kFp32};
  std::vector<AttentionShape> shapes;
  std::vector<bool> causal = {false, true};
  bool mma_configs = false;
  int check_rows = 16;
};

std::vector<std::string> Split(const std::string& s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    const size_t end = s.find(sep, start);
    out.push_back(s.substr(start, end - start));
    if (end == std::string::npos) return out;
    start = end + 1;
  }
}

DType ParseDType(const std::string& s) {
  if (s == "fp32") return DType::kFp32;
  if (s == "fp16") return DType::kFp16;
  if (s == "bf16") return DType::kBf16;
  std::fprintf(stderr, "unknown dtype %s\n", s.c_str());
  std::exit(2);
}

Options Parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--grid") {
      o.grid = true;
    } else if (a == "--dtypes") {
      o.dtypes.clear();
      for (const auto& d : Split(next(), ',')) o.dtypes.push_back(ParseDType(d));
    } else if (a == "--shape") {
      const auto v = Split(next(), ',');
      if (v.size() != 4) {
        std::fprintf(stderr, "--shape B,H,N,D\n");
        std::exit(2);
      }
      AttentionShape s;
      s.batch = std::stoll(v[0]);
      s.heads = std::stoll(v[1]);
      s.seq_len = std::stoll(v[2]);
      s.head_dim = std::stoll(v[3]);
      o.shapes.push_back(s);
    } else if (a == "--causal") {
      const std::string c = next();
      o.causal = c == "both" ? std::vector<bool>{false, true}
                             : std::vector<bool>{c == "1"};
    } else if (a == "--mma-configs") {
      o.mma_configs = true;
    } else if (a == "--check-rows") {
      o.check_rows = std::stoi(next());
    } else {
      std::fprintf(stderr, "unknown argument %s\n", a.c_str());
      std::exit(2);
    }
  }
  if (o.grid) {
    for (int d : {64, 128})
      for (int n : {512, 1024, 2048, 4096, 8192, 16384}) {
        AttentionShape s;
        s.batch = 16384 / n;
        s.heads = 2048 / d;
        s.seq_len = n;
        s.head_dim = d;
        o.shapes.push_back(s);
      }
  }
  return o;
}

// Reference rows, batch-heads spread over threads.
std::vector<double> Reference(const AttentionShape& shape, DType dtype,
                              const std::vector<AttentionRow>& rows) {
  std::map<int64_t, std::vector<AttentionRow>> by_head;
  for (const auto& r : rows) by_head[r.batch_head].push_back(r);
  std::vector<std::future<std::vector<double>>> parts;
  for (const auto& [bh, group] : by_head)
    parts.push_back(std::async(std::launch::async, [&shape, dtype, group] {
      return AttentionReferenceRows(shape, kSeed, dtype, group);
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
    case DType::kFp32: return static_cast<const float*>(p)[i];
    case DType::kFp16: return HalfBitsToFloat(static_cast<const uint16_t*>(p)[i]);
    case DType::kBf16: return Bf16BitsToFloat(static_cast<const uint16_t*>(p)[i]);
  }
  return NAN;
}

ErrorStats Check(const AttentionShape& shape, DType dtype, const void* o,
                 const std::vector<AttentionRow>& rows,
                 const std::vector<double>& ref) {
  const int64_t d = shape.head_dim;
  const size_t eb = size_t(DTypeBytes(dtype));
  std::vector<unsigned char> host(size_t(d) * eb);
  ErrorStats stats;
  for (size_t r = 0; r < rows.size(); ++r) {
    const int64_t first = (rows[r].batch_head * shape.seq_len + rows[r].row) * d;
    CHECK_CUDA(cudaMemcpy(host.data(), static_cast<const char*>(o) + first * eb,
                          host.size(), cudaMemcpyDeviceToHost));
    for (int64_t x = 0; x < d; ++x)
      stats.Add(ToFloat(dtype, host.data(), size_t(x)), ref[r * d + x]);
  }
  return stats;
}

// Median of per-call device times, do_bench style.
double TimeMs(const std::function<void()>& call, void* flush) {
  cudaEvent_t start, stop;
  CHECK_CUDA(cudaEventCreate(&start));
  CHECK_CUDA(cudaEventCreate(&stop));
  auto one = [&]() {
    CHECK_CUDA(cudaMemsetAsync(flush, 0, kFlushBytes));
    CHECK_CUDA(cudaEventRecord(start));
    call();
    CHECK_CUDA(cudaEventRecord(stop));
    CHECK_CUDA(cudaEventSynchronize(stop));
    float ms = 0;
    CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));
    return double(ms);
  };
  double estimate = 0;
  for (int i = 0; i < 3; ++i) estimate = one();
  const int warmup = std::clamp(int(25.0 / std::max(estimate, 1e-3)), 1, 100);
  for (int i = 0; i < warmup; ++i) one();
  const int reps = std::clamp(int(100.0 / std::max(estimate, 1e-3)), 5, 1000);
  std::vector<double> t(static_cast<size_t>(reps));
  for (auto& x : t) x = one();
  std::sort(t.begin(), t.end());
  CHECK_CUDA(cudaEventDestroy(start));
  CHECK_CUDA(cudaEventDestroy(stop));
  return reps % 2 ? t[reps / 2] : (t[reps / 2 - 1] + t[reps / 2]) / 2;
}

const char* ConfigName(MmaConfig c) {
  switch (c) {
    case MmaConfig::kWarps4Rows32: return "fused-w4r32";
    case MmaConfig::kWarps8Rows16: return "fused-w8r16";
    case MmaConfig::kWarps4Rows32Narrow: return "fused-w4r32n";
  }
  return "?";
}

int Run(const Options& opt) {
  cublasHandle_t handle;
  if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) {
    std::fprintf(stderr, "cublasCreate failed\n");
    return 2;
  }
  cudaDeviceProp props{};
  CHECK_CUDA(cudaGetDeviceProperties(&props, 0));
  std::fprintf(stderr, "device: %s, %d SMs\n", props.name, props.multiProcessorCount);
  Buffer flush(kFlushBytes);
  if (!flush.ptr) return 2;
  int failures = 0;
  for (DType dtype : opt.dtypes) {
    for (AttentionShape shape : opt.shapes) {
      const size_t eb = size_t(DTypeBytes(dtype));
      const size_t tensor = size_t(shape.TensorElements()) * eb;
      Buffer q(tensor), k(tensor), v(tensor), o(tensor);
      if (!q.ptr || !k.ptr || !v.ptr || !o.ptr) {
        std::fprintf(stderr, "out of memory for inputs\n");
        return 2;
      }
      CHECK_CUDA(LaunchFillSeeded(dtype, kSeed, InputStream::kQ, 0, q.ptr,
                                    shape.TensorElements(), nullptr));
      CHECK_CUDA(LaunchFillSeeded(dtype, kSeed, InputStream::kK, 0, k.ptr,
                                    shape.TensorElements(), nullptr));
      CHECK_CUDA(LaunchFillSeeded(dtype, kSeed, InputStream::kV, 0, v.ptr,
                                    shape.TensorElements(), nullptr));
      Buffer scores(size_t(shape.ScoreElements()) * eb);
      const AttentionTensors x{q.ptr, k.ptr, v.ptr, o.ptr};
      for (bool causal : opt.causal) {
        shape.causal = causal;
        const auto rows = SampleAttentionRows(shape, opt.check_rows, kSeed);
        const auto ref = Reference(shape, dtype, rows);
        std::vector<std::pair<std::string, std::function<cudaError_t()>>> variants;
        if (scores.ptr)
          variants.push_back({"naive", [&]() -> cudaError_t {
                                if (AttentionScoresGemm(handle, shape, dtype, q.ptr, k.ptr,
                                                        scores.ptr) != CUBLAS_STATUS_SUCCESS)
                                  return cudaErrorUnknown;
                                if (cudaError_t e = LaunchAttentionSoftmax(shape, dtype,
                                                                           scores.ptr, nullptr);
                                    e != cudaSuccess)
                                  return e;
                                return AttentionOutputGemm(handle, shape, dtype, scores.ptr,
                                                           v.ptr, o.ptr) == CUBLAS_STATUS_SUCCESS
                                           ? cudaSuccess
                                           : cudaErrorUnknown;
                              }});
        variants.push_back(
            {"fused", [&]() { return LaunchAttentionFused(shape, dtype, x, nullptr); }});
        if (opt.mma_configs && dtype == DType::kFp32)
          for (auto [c, label] : {std::pair{Fp32Config::kRows128, "fused-r128"},
                                  std::pair{Fp32Config::kRows64Aliased, "fused-r64a"}})
            variants.push_back({label, [&, c]() {
                                  return LaunchAttentionFusedFp32(shape, x, c, nullptr);
                                }});
        if (opt.mma_configs && dtype != DType::kFp32)
          for (MmaConfig c : {MmaConfig::kWarps4Rows32, MmaConfig::kWarps8Rows16,
                              MmaConfig::kWarps4Rows32Narrow})
            variants.push_back({ConfigName(c), [&, c]() {
                                  return LaunchAttentionFusedMma(shape, dtype, x, c, nullptr);
                                }});
        for (auto& [name, call] : variants) {
          CHECK_CUDA(cudaMemset(o.ptr, 0xFF, tensor));
          CHECK_CUDA(call());
          CHECK_CUDA(cudaDeviceSynchronize());
          const ErrorStats err = Check(shape, dtype, o.ptr, rows, ref);
          const bool ok = err.Passes(Tolerance(dtype, true));
          failures += !ok;
          const double ms = TimeMs([&]() { CHECK_CUDA(call()); }, flush.ptr);
          std::printf(
              "{\"source\":\"kbench\",\"variant\":\"%s\",\"dtype\":\"%s\",\"batch\":%lld,"
              "\"heads\":%lld,\"seq_len\":%lld,\"head_dim\":%lld,\"causal\":%s,"
              "\"ms\":%.5f,\"tflops\":%.2f,\"rel_l2\":%.3g,\"max_abs\":%.3g,"
              "\"rows_checked\":%zu,\"ok\":%s}\n",
              name.c_str(), DTypeName(dtype), (long long)shape.batch,
              (long long)shape.heads, (long long)shape.seq_len,
              (long long)shape.head_dim, causal ? "true" : "false", ms,
              shape.Flops() / (ms * 1e-3) / 1e12, err.rel_l2_error(),
              err.max_abs_error(), rows.size(), ok ? "true" : "false");
          std::fflush(stdout);
        }
      }
    }
  }
  cublasDestroy(handle);
  return failures ? 1 : 0;
}

}  // namespace
}  // namespace kbench::kernels::cuda

int main(int argc, char** argv) {
  return kbench::kernels::cuda::Run(kbench::kernels::cuda::Parse(argc, argv));
}
