// Everything kbench knows about vector add (op.h lists what an op declares).
//   problem:  VectorAddProblem { n }, 1 <= n <= Limits.max_vector_n.
//   work:     bytes = 3 * n * sizeof(dtype) (read a, read b, write c),
//             judged against the device's copy bandwidth.
//   verify:   every element against the device's simple reference (a plain
//             a + b loop or kernel), and up to 65,536 elements of c and of
//             that reference against a + b in double from the seed. Inputs
//             are rounded to the dtype first, so a + b is exact and a
//             correct result is one rounding away: |err| <= u |ref| (fp32 u
//             = 6e-8) plus the smallest normal for flushed subnormals, rel
//             L2 <= u (kernels/tolerances.cc); against the fp32 device
//             reference the two bounds add.
//   variants: naive (one element per thread) and vectorized (16-byte
//             accesses, scalar tail), fp32, on the CPU and CUDA.
#include "proto/ops/vector_add/vector_add_op.h"

#include "absl/strings/str_cat.h"
#include "kernels/seeded_input.h"
#include "kernels/vector_add/reference.h"
#include "kernels/vector_add/tolerances.h"
#include "proto/ops/backends.h"
#include "proto/ops/kernel_abi.h"
#include "proto/ops/verification.h"

namespace kbench::proto::ops {
namespace {

using kernels::DType;

// Elements of c checked against the double reference: all of them up to
// this many; beyond, the first and last kEdgeElements (the tail a grid or a
// vector width leaves) and kSampledBlocks blocks of kBlockElements, one
// seeded block in each of as many equal strata of the rest.
constexpr int64_t kMaxExactElements = 65536;
constexpr int64_t kEdgeElements = 4096;
constexpr int64_t kBlockElements = 1024;
constexpr int64_t kSampledBlocks = 56;

std::vector<OutputRange> SampleRanges(int64_t n, uint64_t seed) {
  if (n <= kMaxExactElements) return {{0, n}};
  std::vector<OutputRange> ranges = {{0, kEdgeElements}};
  const int64_t middle = n - 2 * kEdgeElements;
  for (int64_t b = 0; b < kSampledBlocks; ++b) {
    const int64_t first = kEdgeElements + b * middle / kSampledBlocks;
    const int64_t room = kEdgeElements + (b + 1) * middle / kSampledBlocks - first;
    const uint64_t r = kernels::SplitMix64(seed ^ (0xB10Cull + uint64_t(b)));
    ranges.push_back({first + int64_t(r % uint64_t(room - kBlockElements + 1)), kBlockElements});
  }
  ranges.push_back({n - kEdgeElements, kEdgeElements});
  return ranges;
}

class VectorAddVerifier final : public Verifier {
 public:
  VectorAddVerifier(uint64_t seed, DType dtype, int64_t n)
      : tolerances_(kernels::VectorAddTolerances(dtype)), ranges_(SampleRanges(n, seed)) {
    int64_t sampled = 0;
    for (const OutputRange& range : ranges_) {
      for (int64_t i = 0; i < range.count; ++i)
        exact_.push_back(kernels::VectorAddReference(seed, dtype, uint64_t(range.first + i)));
      sampled += range.count;
    }
    method_ =
        absl::StrCat("all ", WithCommas(uint64_t(n)), " elements against the device reference; ",
                     sampled == n ? "every one of " : "", WithCommas(uint64_t(sampled)),
                     " elements against the double reference",
                     sampled == n ? "" : " (first, last and seeded blocks)");
  }

  absl::StatusOr<v1::Verification> Check(DeviceOutput& output) override {
    return CheckOutput(output, tolerances_, ranges_, exact_, method_);
  }

 private:
  const kernels::OpTolerances tolerances_;
  const std::vector<OutputRange> ranges_;
  std::vector<double> exact_;
  std::string method_;
};

class VectorAdd final : public Op {
 public:
  std::string_view name() const override { return "vector_add"; }
  std::string_view description() const override {
    return "c = a + b over n elements; GB/s (bytes = 3 * n * sizeof(dtype)) "
           "against the device's copy bandwidth";
  }
  v1::RunRequest::ProblemCase problem_case() const override { return v1::RunRequest::kVectorAdd; }
  const google::protobuf::Message& Problem(const v1::RunRequest& r) const override {
    return r.vector_add();
  }
  google::protobuf::Message* MutableProblem(v1::RunRequest& r) const override {
    return r.mutable_vector_add();
  }
  const std::vector<ProblemField>& fields() const override {
    static const std::vector<ProblemField> fields = {
        {"n", "--n", "COUNT",
         "Number of elements (required): 1000, 2^28, 1M (= 1Mi = 2^20), 16Mi, 1G", ""},
    };
    return fields;
  }
  const std::vector<std::string>& examples() const override {
    static const std::vector<std::string> examples = {
        "kbench vector-add --n 2^28",
        "kbench vector-add --n 1000 --variant naive,vectorized --budget-ms 200 --csv"};
    return examples;
  }
  const std::vector<VariantSpec>& variants() const override {
    static const std::vector<VariantSpec> variants = VariantTable<VectorAddVariant>({
        {kVectorAddNaive,
         {"naive",
          "one element per thread, grid = ceil(n / block), tail masked",
          {{std::string(kCpuBackend), {DType::kFp32}, {}},
           {std::string(kCudaBackend), {DType::kFp32}, {}}}}},
        {kVectorAddVectorized,
         {"vectorized",
          "8- or 16-byte loads and stores (float2 while the arrays fit the L2, float4 "
          "beyond), a grid covering the array, scalar tail",
          {{std::string(kCpuBackend), {DType::kFp32}, {}},
           {std::string(kCudaBackend), {DType::kFp32}, {}}}}},
    });
    return variants;
  }

  void SetDefaultLimits(const v1::DeviceInfo&, v1::Limits& limits) const override {
    // 3 GiB of fp32 a, b and c: fits every device kbench runs on.
    limits.set_max_vector_n(uint64_t(1) << 28);
  }

  std::vector<std::pair<std::string, std::string>> LimitHelp() const override {
    return {{"max_vector_n", "Largest vector add n (elements)"}};
  }

  absl::Status CheckProblem(const v1::RunRequest& request,
                            const v1::Limits& limits) const override {
    return CheckRange("n", request.vector_add().n(), 1, limits.max_vector_n());
  }

  Work WorkOf(const v1::RunRequest& request, DType dtype) const override {
    const int bytes = kernels::DTypeBytes(dtype);
    return {Work::Unit::kBytes, 3.0 * double(request.vector_add().n()) * bytes,
            absl::StrCat("bytes = 3 * n * ", bytes, " (read a, read b, write c)")};
  }

  // Parameter sizes are those of the 64-bit ABI: pointers and long long 8
  // bytes.
  const KernelAbi* kernel_abi() const override {
    static const KernelAbi abi = {"vector_add",
                                  {{"const kbench_t* a", 8},
                                   {"const kbench_t* b", 8},
                                   {"kbench_t* c", 8},
                                   {"long long n", 8}},
                                  {"n"},
                                  {DType::kFp32},
                                  [](const v1::RunRequest& request) {
                                    return std::vector<int64_t>{int64_t(request.vector_add().n())};
                                  },
                                  [](const v1::RunRequest& request) {
                                    return std::vector<KernelArgument>{
                                        KernelArgument::Buffer(0), KernelArgument::Buffer(1),
                                        KernelArgument::Buffer(2),
                                        KernelArgument::Int64(int64_t(request.vector_add().n()))};
                                  }};
    return &abi;
  }

  std::unique_ptr<Verifier> MakeVerifier(const v1::RunRequest& request,
                                         DType dtype) const override {
    return std::make_unique<VectorAddVerifier>(request.seed(), dtype,
                                               int64_t(request.vector_add().n()));
  }
};

}  // namespace

const Op& VectorAddOp() {
  static const VectorAdd op;
  return op;
}

}  // namespace kbench::proto::ops
