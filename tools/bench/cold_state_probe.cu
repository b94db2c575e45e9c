// What a cold sample's start state costs: the naive vector add of
// docs/examples/kernels/vector_add_naive.cu (2^24 floats by default) timed
// after several preparations, each ending in the state some cold timer
// leaves, so that tools/bench/cold_state_probe.py can set CUDA events
// beside Nsight Compute's durations of the same launches under each state.
// Not part of the server; built as kbench_cold_state_probe
// (tools/bench/CMakeLists.txt; scripts/gpu_check.sh build bundles it in .gpu/)
// and run as PROBE [--n N] [--samples S] [--only STATE]. Prints one JSON
// object: the device, and for each state its name, what it does, and the
// event times (ms) of its launches. The kernel of state k is
// probe_vector_add<k>, so a profiler's rows name their state.
//
// The states (the rounds take them in turn, one launch each):
//   server:       inputs rewritten and output poisoned (what a learner's run
//                 does before a sample), then kbench's L2 flush;
//   flush:        kbench's L2 flush alone;
//   server_pages: as server, then one load per 64 KiB of the three buffers
//                 (the translations of their pages cached; 0.02% of their
//                 bytes left in the L2);
//   server_gap:   as server, then the host waits for the stream and 2 ms
//                 more before the start event;
//   server_flush2: as server, with the flush twice;
//   warm:         inputs rewritten and output poisoned, no flush.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "kernels/cuda_runtime/l2_flush_kernel.h"

namespace {

constexpr int kStates = 6;
const char* const kNames[kStates] = {"server",     "flush",         "server_pages",
                                     "server_gap", "server_flush2", "warm"};
const char* const kWhat[kStates] = {"inputs rewritten, output poisoned, kbench's L2 flush",
                                    "kbench's L2 flush alone",
                                    "as server, then one load per 64 KiB of a, b and c",
                                    "as server, then the host waits for the stream and 2 ms",
                                    "as server, with kbench's L2 flush twice",
                                    "inputs rewritten, output poisoned, no flush"};
constexpr size_t kPageStride = 64 << 10;

void Check(cudaError_t error, const char* what) {
  if (error == cudaSuccess) return;
  std::fprintf(stderr, "cold_state_probe: %s: %s\n", what, cudaGetErrorString(error));
  std::exit(1);
}

template <int kState>
__global__ void probe_vector_add(const float* a, const float* b, float* c, long long n) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

__global__ void Fill(float* a, float* b, long long n, unsigned round) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    a[i] = float((i * 2654435761u + round) & 1023) / 1024.0f;
    b[i] = float((i * 40503u + round) & 511) / 512.0f;
  }
}

__global__ void TouchPages(const char* a, const char* b, const char* c, long long pages,
                           unsigned* sink) {
  const long long p = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= pages) return;
  const size_t at = size_t(p) * kPageStride;
  const unsigned v = __ldcg(reinterpret_cast<const unsigned*>(a + at)) ^
                     __ldcg(reinterpret_cast<const unsigned*>(b + at)) ^
                     __ldcg(reinterpret_cast<const unsigned*>(c + at));
  if (v == 0x9e3779b9u) *sink = v;
}

template <int kState>
void Launch(const float* a, const float* b, float* c, long long n, cudaStream_t s) {
  probe_vector_add<kState><<<unsigned((n + 255) / 256), 256, 0, s>>>(a, b, c, n);
}

}  // namespace

int main(int argc, char** argv) {
  long long n = 1LL << 24;
  int samples = 30;
  int only = -1;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--n"))
      n = std::atoll(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--samples"))
      samples = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--only")) {
      for (int k = 0; k < kStates; ++k)
        if (!std::strcmp(argv[i + 1], kNames[k])) only = k;
    } else {
      std::fprintf(stderr, "usage: %s [--n N] [--samples S] [--only STATE]\n", argv[0]);
      return 2;
    }
  }
  if (n <= 0 || samples <= 0 || n % (kPageStride / 4) != 0) {
    std::fprintf(stderr, "cold_state_probe: --n must be a positive multiple of %zu\n",
                 kPageStride / 4);
    return 2;
  }
  int device = 0, l2 = 0;
  cudaDeviceProp prop{};
  Check(cudaGetDevice(&device), "cudaGetDevice");
  Check(cudaGetDeviceProperties(&prop, device), "cudaGetDeviceProperties");
  Check(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device), "L2 size");
  const size_t bytes = size_t(n) * sizeof(float);
  const size_t flush_bytes = kbench::kernels::cuda_runtime::L2FlushBytes(size_t(l2));
  float *a, *b, *c;
  void* flush;
  unsigned* sink;
  Check(cudaMalloc(&a, bytes), "cudaMalloc a");
  Check(cudaMalloc(&b, bytes), "cudaMalloc b");
  Check(cudaMalloc(&c, bytes), "cudaMalloc c");
  Check(cudaMalloc(&flush, flush_bytes), "cudaMalloc flush");
  Check(cudaMalloc(&sink, sizeof(unsigned)), "cudaMalloc sink");
  Check(cudaMemset(flush, 0, flush_bytes), "cudaMemset flush");
  cudaStream_t s;
  cudaEvent_t start, stop;
  Check(cudaStreamCreate(&s), "cudaStreamCreate");
  Check(cudaEventCreate(&start), "cudaEventCreate");
  Check(cudaEventCreate(&stop), "cudaEventCreate");
  auto do_flush = [&] {
    Check(kbench::kernels::cuda_runtime::LaunchL2Flush(flush, flush_bytes, sink, s), "flush");
  };
  auto rewrite = [&](unsigned round) {
    Fill<<<prop.multiProcessorCount * 8, 256, 0, s>>>(a, b, n, round);
    Check(cudaMemsetAsync(c, 0xFF, bytes, s), "poison");
  };
  const long long pages = (long long)(bytes / kPageStride);
  void (*launch[kStates])(const float*, const float*, float*, long long, cudaStream_t) = {
      Launch<0>, Launch<1>, Launch<2>, Launch<3>, Launch<4>, Launch<5>};

  std::vector<std::vector<float>> ms(kStates);
  for (int round = 0; round <= samples; ++round) {  // round 0: untimed warm-up
    for (int j = 0; j < kStates; ++j) {
      const int k = (j + round) % kStates;
      if (only >= 0 && k != only) continue;
      if (k != 1) rewrite(unsigned(round * kStates + k));
      if (k != 5) do_flush();
      if (k == 4) do_flush();
      if (k == 2)
        TouchPages<<<unsigned((pages + 255) / 256), 256, 0, s>>>(
            reinterpret_cast<const char*>(a), reinterpret_cast<const char*>(b),
            reinterpret_cast<const char*>(c), pages, sink);
      if (k == 3) {
        Check(cudaStreamSynchronize(s), "sync");
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
      }
      Check(cudaEventRecord(start, s), "record");
      launch[k](a, b, c, n, s);
      Check(cudaGetLastError(), "launch");
      Check(cudaEventRecord(stop, s), "record");
      Check(cudaEventSynchronize(stop), "sync");
      float t = 0;
      Check(cudaEventElapsedTime(&t, start, stop), "elapsed");
      if (round > 0) ms[k].push_back(t);
    }
  }
  std::printf(
      "{\"device\": \"%s\", \"n\": %lld, \"l2_bytes\": %d, \"flush_bytes\": %zu, "
      "\"states\": [",
      prop.name, n, l2, flush_bytes);
  bool first = true;
  for (int k = 0; k < kStates; ++k) {
    if (ms[k].empty()) continue;
    std::printf("%s\n {\"state\": \"%s\", \"index\": %d, \"what\": \"%s\", \"event_ms\": [",
                first ? "" : ",", kNames[k], k, kWhat[k]);
    for (size_t i = 0; i < ms[k].size(); ++i) std::printf("%s%.6f", i ? ", " : "", ms[k][i]);
    std::printf("]}");
    first = false;
  }
  std::printf("]}\n");
  return 0;
}
