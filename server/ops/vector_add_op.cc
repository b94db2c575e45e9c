// Everything kbench knows about vector add (op.h lists what an op declares).
//   problem:  VectorAddProblem { n }, 1 <= n <= Limits.max_vector_n.
//   work:     bytes = 3 * n * sizeof(dtype) (read a, read b, write c),
//             judged against the device's copy bandwidth.
//   verify:   every element against a + b in double from the seed; one fp32
//             rounding per element, so the fp32 tolerance holds.
//   variants: naive (one element per thread) and vectorized (16-byte
//             accesses, scalar tail), fp32, on the CPU and CUDA.
#include "server/ops/vector_add_op.h"

#include "absl/strings/str_cat.h"
#include "kernels/reference.h"
#include "kernels/verify.h"
#include "server/ops/verification.h"

namespace kbench::ops {
namespace {

using kernels::DType;

class VectorAddVerifier final : public Verifier {
 public:
  VectorAddVerifier(uint64_t seed, DType dtype, int64_t n)
      : seed_(seed), dtype_(dtype), n_(n) {}

  v1::Verification Check(std::span<const float> out) override {
    kernels::ErrorStats errors;
    for (int64_t i = 0; i < n_; ++i)
      errors.Add(out[i], kernels::VectorAddReference(seed_, dtype_, uint64_t(i)));
    return ToVerification(errors, kernels::Tolerance(dtype_, /*attention=*/false),
                          absl::StrCat("all ", n_, " elements"));
  }

 private:
  const uint64_t seed_;
  const DType dtype_;
  const int64_t n_;
};

class VectorAdd final : public Op {
 public:
  std::string_view name() const override { return "vector_add"; }
  std::string_view description() const override {
    return "c = a + b over n elements; GB/s (bytes = 3 * n * sizeof(dtype)) "
           "against the device's copy bandwidth";
  }
  v1::RunRequest::ProblemCase problem_case() const override {
    return v1::RunRequest::kVectorAdd;
  }
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
    static const std::vector<VariantSpec> variants = {
        {kVectorAddNaive, "naive", "one element per thread, grid = ceil(n / block), tail masked",
         {{"cpu", {DType::kFp32}, {}}, {"cuda", {DType::kFp32}, {}}}},
        {kVectorAddVectorized, "vectorized",
         "16-byte loads and stores (float4), grid-stride, scalar tail",
         {{"cpu", {DType::kFp32}, {}}, {"cuda", {DType::kFp32}, {}}}},
    };
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

}  // namespace kbench::ops
