// Everything kbench knows about attention (op.h lists what an op declares).
//   problem:  AttentionProblem { batch, heads, seq_len, head_dim, causal };
//             Q, K, V, O are [batch, heads, seq_len, head_dim], row major.
//   work:     FLOPs = 4 * B * H * N^2 * d, halved when causal (the
//             FlashAttention convention), judged against the device's
//             matmul rate for 16-bit dtypes.
//   verify:   every element of O against the device's simple reference
//             (per-row two-pass softmax, fp32), and rows of O and of that
//             reference against the double-precision reference from the
//             seed (every row of small problems; of large ones a seeded
//             sample over all batch-heads, kernels/attention/reference.h). Tolerances
//             from kernels/tolerances.cc, per dtype, d and N: fp32 at d = 64,
//             N = 4096: |err| <= 6.1e-5 + 6e-8 |ref|, rel L2 1.7e-5 (fp32
//             accumulation over d and N, lambda sqrt(n) u); fp16 5.5e-4 +
//             4.9e-4 |ref|, rel L2 1.0e-3 (P and O rounded to fp16; observed
//             3e-4); bf16 4.0e-3 + 3.9e-3 |ref|, rel L2 7.8e-3. Against the
//             device reference the reference's own fp32 bound is added.
//   variants: naive (the TinyGPT replica: S to memory, softmax, P V) and
//             fused (FlashAttention-style, S never in memory).
#include "proto/ops/attention/attention_op.h"

#include <algorithm>
#include <cmath>
#include <iterator>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "kernels/attention/attention_head_dims.h"
#include "kernels/attention/reference.h"
#include "kernels/attention/tolerances.h"
#include "proto/ops/backends.h"
#include "proto/ops/dtypes.h"
#include "proto/ops/kernel_abi.h"
#include "proto/ops/verification.h"

namespace kbench::proto::ops {
namespace {

using kernels::AttentionShape;
using kernels::DType;

// "64, 128"; a run of three or more with one step: "a multiple of 8 from 32
// to 256".
std::string DescribeHeadDims(const std::vector<uint32_t>& dims) {
  bool progression = dims.size() >= 3 && dims[1] > dims[0];
  for (size_t i = 2; progression && i < dims.size(); ++i)
    progression = dims[i] - dims[i - 1] == dims[1] - dims[0];
  if (!progression) return absl::StrJoin(dims, ", ");
  return absl::StrCat("a multiple of ", dims[1] - dims[0], " from ", dims.front(), " to ",
                      dims.back());
}

std::vector<uint32_t> FusedCudaHeadDims() {
  return {std::begin(kernels::kFusedCudaHeadDims), std::end(kernels::kFusedCudaHeadDims)};
}
std::vector<uint32_t> FusedCudaFp8HeadDims() {
  return {std::begin(kernels::kFusedCudaFp8HeadDims), std::end(kernels::kFusedCudaFp8HeadDims)};
}

class AttentionVerifier final : public Verifier {
 public:
  AttentionVerifier(const AttentionShape& shape, uint64_t seed, DType dtype)
      : shape_(shape),
        seed_(seed),
        dtype_(dtype),
        tolerances_(kernels::AttentionTolerances(dtype, shape)),
        rows_(kernels::SampleAttentionRows(shape, kMaxVerifiedAttentionRows, seed)) {
    for (const kernels::AttentionRow& row : rows_)
      ranges_.push_back(
          {(row.batch_head * shape.seq_len + row.row) * shape.head_dim, shape.head_dim});
    const int64_t all_rows = shape.BatchHeads() * shape.seq_len;
    method_ = absl::StrCat(
        "all ", WithCommas(uint64_t(shape.TensorElements())),
        " elements against the device reference; ",
        int64_t(rows_.size()) == all_rows ? "every one of " : "", WithCommas(rows_.size()),
        " rows against the double reference",
        int64_t(rows_.size()) == all_rows
            ? ""
            : absl::StrCat(" (seeded, spread over all ", WithCommas(uint64_t(shape.BatchHeads())),
                           " batch-heads; first, last and tail-tile rows included)"));
  }

  absl::StatusOr<v1::Verification> Check(DeviceOutput& output) override {
    // Computed once, on first use, and shared by every check of the run.
    if (exact_.empty()) exact_ = kernels::AttentionReferenceRows(shape_, seed_, dtype_, rows_);
    return CheckOutput(output, tolerances_, ranges_, exact_, method_);
  }

 private:
  const AttentionShape shape_;
  const uint64_t seed_;
  const DType dtype_;
  const kernels::OpTolerances tolerances_;
  const std::vector<kernels::AttentionRow> rows_;
  std::vector<OutputRange> ranges_;
  std::string method_;
  std::vector<double> exact_;
};

class Attention final : public Op {
 public:
  std::string_view name() const override { return "attention"; }
  std::string_view description() const override {
    return "O = softmax(Q K^T / sqrt(head_dim) [+ causal mask]) V; TFLOP/s "
           "(4 * batch * heads * seq^2 * head_dim, halved for causal)";
  }
  v1::RunRequest::ProblemCase problem_case() const override { return v1::RunRequest::kAttention; }
  const google::protobuf::Message& Problem(const v1::RunRequest& r) const override {
    return r.attention();
  }
  google::protobuf::Message* MutableProblem(v1::RunRequest& r) const override {
    return r.mutable_attention();
  }
  const std::vector<ProblemField>& fields() const override {
    static const std::vector<ProblemField> fields = {
        {"batch", "--batch", "N", "Batch size", "1"},
        {"heads", "--heads", "N", "Heads", "8"},
        {"seq_len", "--seq", "N", "Sequence length N, in tokens (required)", ""},
        {"head_dim", "--head-dim", "D", "Head dimension d", "64"},
        {"causal", "--causal", "", "Query i attends to keys 0..i only", "false"},
    };
    return fields;
  }
  const std::vector<std::string>& examples() const override {
    static const std::vector<std::string> examples = {
        "kbench attention --seq 4096 --variant naive,fused",
        "kbench attention --batch 4 --heads 16 --seq 2048 --head-dim 128 --causal --dtype bf16"};
    return examples;
  }
  const std::vector<VariantSpec>& variants() const override {
    static const std::vector<VariantSpec> variants = VariantTable<AttentionVariant>({
        {kAttentionNaive,
         {"naive",
          "the TinyGPT replica: S = Q K^T * scale to memory, mask + softmax, then P V (fp8: "
          "Q, K, V widened to bf16 first)",
          {{std::string(kCpuBackend), {DType::kFp32}, {}},
           {std::string(kCudaBackend),
            {DType::kFp32, DType::kFp16, DType::kBf16, DType::kFp8},
            {}}}}},
        {kAttentionFused,
         {"fused",
          "FlashAttention-style: tiles on chip, online softmax, S never in memory (fp8: "
          "FP8 tensor cores on Hopper, P in fp8, head_dim a multiple of 16 up to 128)",
          {{std::string(kCpuBackend), {DType::kFp32}, {}},
           {std::string(kCudaBackend),
            {DType::kFp32, DType::kFp16, DType::kBf16, DType::kFp8},
            FusedCudaHeadDims()}}}},
    });
    return variants;
  }

  void SetDefaultLimits(const v1::DeviceInfo& device, v1::Limits& limits) const override {
    // A GPU (it has SMs) runs long sequences in milliseconds; a CPU core
    // takes seconds for the same work, so its bounds are tighter. Memory
    // bounds never exceed a quarter of the device's memory per tensor.
    const bool accelerator = device.sm_count() > 0;
    limits.set_max_batch(1024);
    limits.set_max_heads(256);
    limits.set_max_seq_len(accelerator ? 65536 : 8192);
    limits.set_max_head_dim(kernels::kMaxAttentionHeadDim);
    uint64_t elements = uint64_t(1) << (accelerator ? 30 : 26);
    uint64_t scores = uint64_t(1) << (accelerator ? 33 : 28);
    if (device.memory_bytes() > 0) {
      elements = std::min(elements, device.memory_bytes() / 4 / 4);
      scores = std::min(scores, device.memory_bytes() / 2 / 4);
    }
    limits.set_max_attention_elements(elements);
    limits.set_max_score_elements(scores);
    limits.set_max_attention_gflop(accelerator ? 1e6 : 20);
  }

  std::vector<std::pair<std::string, std::string>> LimitHelp() const override {
    return {
        {"max_batch", "Largest attention batch"},
        {"max_heads", "Largest attention heads"},
        {"max_seq_len", "Largest attention seq_len"},
        {"max_head_dim", "Largest attention head_dim"},
        {"max_attention_elements", "Largest batch*heads*seq_len*head_dim (each of Q, K, V, O)"},
        {"max_score_elements",
         "Largest batch*heads*seq_len^2, the scores the naive variant stores"},
        {"max_attention_gflop", "Largest work of one attention sample, 4*B*H*N^2*d, in GFLOP"},
    };
  }

  absl::Status CheckProblem(const v1::RunRequest& request,
                            const v1::Limits& limits) const override {
    const v1::AttentionProblem& p = request.attention();
    // An operator's --max-head-dim cannot go past what the kernels run.
    const uint32_t max_head_dim =
        std::min(limits.max_head_dim(), uint32_t(kernels::kMaxAttentionHeadDim));
    for (const auto& [field, value, high] :
         {std::tuple{"batch", p.batch(), limits.max_batch()},
          std::tuple{"heads", p.heads(), limits.max_heads()},
          std::tuple{"seq_len", p.seq_len(), limits.max_seq_len()},
          std::tuple{"head_dim", p.head_dim(), max_head_dim}}) {
      if (absl::Status s = CheckRange(field, value, 1, high); !s.ok()) return s;
    }
    const AttentionShape shape = ShapeOf(p);
    if (uint64_t(shape.TensorElements()) > limits.max_attention_elements())
      return absl::InvalidArgumentError(
          absl::StrCat("batch * heads * seq_len * head_dim must be at most ",
                       limits.max_attention_elements(), ", got ", shape.TensorElements()));
    const double gflop = 4.0 * shape.BatchHeads() * double(shape.seq_len) * double(shape.seq_len) *
                         double(shape.head_dim) / 1e9;
    if (gflop > limits.max_attention_gflop())
      return absl::InvalidArgumentError(absl::StrCat(
          "one attention sample would take 4 * batch * heads * seq_len^2 * head_dim = ", gflop,
          " GFLOP; the limit (max_attention_gflop) is ", limits.max_attention_gflop()));
    return absl::OkStatus();
  }

  absl::Status CheckVariants(const v1::RunRequest& request,
                             const std::vector<const VariantSpec*>& variants,
                             std::string_view backend, const v1::Limits& limits) const override {
    const AttentionShape shape = ShapeOf(request.attention());
    for (const VariantSpec* variant : variants) {
      const std::vector<uint32_t>& dims = variant->On(backend)->head_dims;
      if (!dims.empty() &&
          std::find(dims.begin(), dims.end(), uint32_t(shape.head_dim)) == dims.end())
        return absl::InvalidArgumentError(
            absl::StrCat("head_dim ", shape.head_dim, " is not supported by ", variant->name,
                         " on this server; supported: ", DescribeHeadDims(dims)));
      // The fp8 kernel runs a narrower list than fused's others.
      const std::vector<uint32_t> fp8_dims = FusedCudaFp8HeadDims();
      if (variant->id == kAttentionFused && backend == kCudaBackend &&
          FromProto(request.dtype()) == DType::kFp8 &&
          std::find(fp8_dims.begin(), fp8_dims.end(), uint32_t(shape.head_dim)) == fp8_dims.end())
        return absl::InvalidArgumentError(absl::StrCat(
            "head_dim ", shape.head_dim, " is not supported by fused in fp8; ", "supported: ",
            DescribeHeadDims(fp8_dims), " (or use --variant naive, or another dtype)"));
      if (variant->id == kAttentionNaive &&
          uint64_t(shape.ScoreElements()) > limits.max_score_elements())
        return absl::InvalidArgumentError(absl::StrCat(
            "the naive variant stores batch * heads * seq_len^2 = ", shape.ScoreElements(),
            " scores; the limit (max_score_elements) is ", limits.max_score_elements()));
    }
    return absl::OkStatus();
  }

  Work WorkOf(const v1::RunRequest& request, DType) const override {
    const AttentionShape shape = ShapeOf(request.attention());
    return {
        Work::Unit::kFlops, shape.Flops(),
        shape.causal ? "FLOPs = 4 * B * H * N^2 * d / 2 (causal)" : "FLOPs = 4 * B * H * N^2 * d"};
  }

  // Parameter sizes are those of the 64-bit ABI: pointers 8 bytes, int and
  // float 4. causal is an int (0 or 1), not a bool, so that PTX written by
  // hand has one obvious size for it.
  const KernelAbi* kernel_abi() const override {
    static const KernelAbi abi = {
        "attention",
        {{"const kbench_t* q", 8},
         {"const kbench_t* k", 8},
         {"const kbench_t* v", 8},
         {"kbench_out_t* o", 8},
         {"int B", 4},
         {"int H", 4},
         {"int N", 4},
         {"int d", 4},
         {"float scale", 4},
         {"int causal", 4}},
        {"B", "H", "N", "d"},
        {DType::kFp32, DType::kFp16, DType::kBf16, DType::kFp8},
        [](const v1::RunRequest& request) {
          const v1::AttentionProblem& p = request.attention();
          return std::vector<int64_t>{p.batch(), p.heads(), p.seq_len(), p.head_dim()};
        },
        [](const v1::RunRequest& request) {
          const v1::AttentionProblem& p = request.attention();
          return std::vector<KernelArgument>{
              KernelArgument::Buffer(0),
              KernelArgument::Buffer(1),
              KernelArgument::Buffer(2),
              KernelArgument::Buffer(3),
              KernelArgument::Int32(p.batch()),
              KernelArgument::Int32(p.heads()),
              KernelArgument::Int32(p.seq_len()),
              KernelArgument::Int32(p.head_dim()),
              KernelArgument::Float32(float(1.0 / std::sqrt(double(p.head_dim())))),
              KernelArgument::Int32(p.causal() ? 1 : 0)};
        }};
    return &abi;
  }

  std::unique_ptr<Verifier> MakeVerifier(const v1::RunRequest& request,
                                         DType dtype) const override {
    return std::make_unique<AttentionVerifier>(ShapeOf(request.attention()), request.seed(), dtype);
  }
};

}  // namespace

kernels::AttentionShape ShapeOf(const v1::AttentionProblem& p) {
  kernels::AttentionShape shape;
  shape.batch = p.batch();
  shape.heads = p.heads();
  shape.seq_len = p.seq_len();
  shape.head_dim = p.head_dim();
  shape.causal = p.causal();
  return shape;
}

const Op& AttentionOp() {
  static const Attention op;
  return op;
}

}  // namespace kbench::proto::ops
