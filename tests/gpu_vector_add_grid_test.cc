// The grid sweep behind the vectorized kernel's grid (one float4 per thread
// beyond the L2, covering the array): on large cold problems it is compared
// with grids capped at 1, 2, 4 and 8 waves of resident blocks (threads then
// stride), and capped grids write tails too.
// The test specifies what every grid must do, write c = a + b exactly, and
// that each timing is a positive, finite number; it prints the sweep
// ("grid sweep: ..." lines), and tools/bench/vector_add_table.py reads
// those lines to report whether the covering grid is within its margin of
// the best. Uses the CUDA runtime library and the kernels directly; skipped
// where no CUDA device is present.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "kernels/common/status_macros.h"
#include "kernels/cuda/seeded_fill.h"
#include "kernels/cuda/vector_add/vector_add.h"
#include "kernels/cuda_runtime/cuda_status.h"
#include "kernels/cuda_runtime/device_buffer.h"
#include "kernels/cuda_runtime/l2_flusher.h"
#include "kernels/cuda_runtime/sample_timer.h"
#include "kernels/cuda_runtime/stream.h"
#include "kernels/dtype.h"
#include "kernels/vector_add/reference.h"
#include "server/worker/backends/cuda/cuda_device.h"

namespace kbench::kernels::cuda_runtime {
namespace {

constexpr int kSamples = 31;
constexpr uint64_t kSeed = 1;

// a, b and c of one size, a and b filled from the seed.
struct Arrays {
  int64_t n = 0;
  DeviceBuffer a, b, c;
};

absl::StatusOr<Arrays> MakeArrays(int64_t n, const Stream& stream) {
  Arrays arrays;
  arrays.n = n;
  const size_t bytes = size_t(n) * sizeof(float);
  KBENCH_ASSIGN_OR_RETURN(arrays.a, DeviceBuffer::Allocate(bytes));
  KBENCH_ASSIGN_OR_RETURN(arrays.b, DeviceBuffer::Allocate(bytes));
  KBENCH_ASSIGN_OR_RETURN(arrays.c, DeviceBuffer::Allocate(bytes));
  using kernels::DType;
  using kernels::InputStream;
  KBENCH_CUDA_RETURN_IF_ERROR(kernels::cuda::LaunchFillSeeded(DType::kFp32, kSeed, InputStream::kA,
                                                              0, arrays.a.get(), n, stream.get()));
  KBENCH_CUDA_RETURN_IF_ERROR(kernels::cuda::LaunchFillSeeded(DType::kFp32, kSeed, InputStream::kB,
                                                              0, arrays.b.get(), n, stream.get()));
  KBENCH_RETURN_IF_ERROR(stream.Synchronize());
  return arrays;
}

// Runs the kernel once on a NaN-poisoned c and counts the elements that are
// not exactly a + b (inputs carry 24 random bits in [-1, 1): the fp32 sum is
// exact).
absl::StatusOr<int64_t> WrongElements(const Arrays& arrays, int max_blocks, const Stream& stream) {
  KBENCH_CUDA_RETURN_IF_ERROR(
      cudaMemsetAsync(arrays.c.get(), 0xFF, arrays.c.bytes(), stream.get()));
  KBENCH_CUDA_RETURN_IF_ERROR(kernels::cuda::LaunchVectorAddVectorized(
      arrays.a.as<float>(), arrays.b.as<float>(), arrays.c.as<float>(), arrays.n, stream.get(),
      max_blocks));
  std::vector<float> c(size_t(arrays.n));
  KBENCH_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(c.data(), arrays.c.get(), arrays.c.bytes(),
                                              cudaMemcpyDeviceToHost, stream.get()));
  KBENCH_RETURN_IF_ERROR(stream.Synchronize());
  int64_t wrong = 0;
  for (size_t i = 0; i < c.size(); ++i)
    wrong += double(c[i]) != kernels::VectorAddReference(kSeed, kernels::DType::kFp32, i);
  return wrong;
}

// The sorted cold samples of the kernel with a grid of at most max_blocks.
absl::StatusOr<std::vector<double>> ColdSamples(const Arrays& arrays, int max_blocks,
                                                SampleTimer& timer) {
  auto enqueue = [&](cudaStream_t stream) -> absl::Status {
    KBENCH_CUDA_RETURN_IF_ERROR(kernels::cuda::LaunchVectorAddVectorized(
        arrays.a.as<float>(), arrays.b.as<float>(), arrays.c.as<float>(), arrays.n, stream,
        max_blocks));
    return absl::OkStatus();
  };
  std::vector<double> ms;
  for (int i = 0; i < kSamples; ++i) {
    KBENCH_ASSIGN_OR_RETURN(const double sample, timer.Cold(enqueue));
    ms.push_back(sample);
  }
  std::sort(ms.begin(), ms.end());
  return ms;
}

TEST(VectorAddVectorizedGrid, EveryGridOfTheSweepWritesExactSumsAndTimesSanely) {
  if (const auto count = server::worker::backends::cuda::CudaDeviceCount(); !count.ok())
    GTEST_SKIP() << count.status().message();
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  int l2_bytes = 0, wave = 0;
  ASSERT_EQ(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, 0), cudaSuccess);
  ASSERT_EQ(kernels::cuda::VectorAddVectorizedResidentBlocks(0, &wave), cudaSuccess);
  auto stream = Stream::Create();
  ASSERT_TRUE(stream.ok()) << stream.status();
  auto flusher = L2Flusher::Create(size_t(l2_bytes));
  ASSERT_TRUE(flusher.ok()) << flusher.status();
  auto timer = SampleTimer::Create(stream->get(), &*flusher);
  ASSERT_TRUE(timer.ok()) << timer.status();

  for (const int64_t n : {int64_t(1) << 24, int64_t(1) << 28}) {
    const absl::StatusOr<Arrays> arrays = MakeArrays(n, *stream);
    ASSERT_TRUE(arrays.ok()) << arrays.status();
    // Caps in waves of resident blocks; 0 stands for no cap (the default).
    for (const int waves : {0, 1, 2, 4, 8}) {
      SCOPED_TRACE(absl::StrCat("n = ", n, ", waves = ", waves));
      const int max_blocks = waves > 0 ? waves * wave : kernels::cuda::kMaxGridBlocks;
      const absl::StatusOr<int64_t> wrong = WrongElements(*arrays, max_blocks, *stream);
      ASSERT_TRUE(wrong.ok()) << wrong.status();
      EXPECT_EQ(*wrong, 0);
      const absl::StatusOr<std::vector<double>> ms = ColdSamples(*arrays, max_blocks, *timer);
      ASSERT_TRUE(ms.ok()) << ms.status();
      for (double sample : *ms) EXPECT_TRUE(std::isfinite(sample) && sample > 0) << sample;
      const double median = (*ms)[ms->size() / 2];
      std::printf(
          "grid sweep: n=%lld waves=%d (0: no cap) blocks<=%d "
          "median %.4f ms, %.0f GB/s\n",
          (long long)n, waves, max_blocks, median, 12.0 * double(n) / (median * 1e-3) / 1e9);
    }
  }
}

// A capped grid strides, and block 0 takes the tail: float2 accesses with a
// tail of one (arrays within the L2) and float4 with a tail of three
// (beyond it), each capped at one block and at one wave.
TEST(VectorAddVectorizedGrid, CappedGridsWriteEveryElementTailsIncluded) {
  if (const auto count = server::worker::backends::cuda::CudaDeviceCount(); !count.ok())
    GTEST_SKIP() << count.status().message();
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  int wave = 0;
  ASSERT_EQ(kernels::cuda::VectorAddVectorizedResidentBlocks(0, &wave), cudaSuccess);
  auto stream = Stream::Create();
  ASSERT_TRUE(stream.ok()) << stream.status();
  for (const int64_t n : {(int64_t(1) << 20) + 1, (int64_t(1) << 24) + 3}) {
    const absl::StatusOr<Arrays> arrays = MakeArrays(n, *stream);
    ASSERT_TRUE(arrays.ok()) << arrays.status();
    for (const int max_blocks : {1, wave}) {
      SCOPED_TRACE(absl::StrCat("n = ", n, ", max_blocks = ", max_blocks));
      const absl::StatusOr<int64_t> wrong = WrongElements(*arrays, max_blocks, *stream);
      ASSERT_TRUE(wrong.ok()) << wrong.status();
      EXPECT_EQ(*wrong, 0);
    }
  }
}

}  // namespace
}  // namespace kbench::kernels::cuda_runtime
