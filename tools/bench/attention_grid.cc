#include "tools/bench/attention_grid.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "kernels/dtype.h"
#include "proto/ops/attention/attention_op.h"
#include "proto/ops/backends.h"
#include "proto/ops/dtypes.h"
#include "proto/ops/registry.h"

namespace kbench::tools::bench {
namespace {

constexpr int64_t kGridTokens = 16384;  // B * N
constexpr int64_t kGridWidth = 2048;    // H * d
constexpr int64_t kGridSeqLens[] = {512, 1024, 2048, 4096, 8192, 16384};
constexpr int64_t kGridHeadDims[] = {64, 128, 256};

kernels::AttentionShape Shape(int64_t batch, int64_t heads, int64_t seq_len, int64_t head_dim) {
  kernels::AttentionShape s;
  s.batch = batch;
  s.heads = heads;
  s.seq_len = seq_len;
  s.head_dim = head_dim;
  return s;
}

// One shape a line: "  [32, 32, 512, 64]".
std::string ShapesJson(const std::vector<kernels::AttentionShape>& shapes) {
  std::vector<std::string> lines;
  for (const kernels::AttentionShape& s : shapes)
    lines.push_back(
        absl::StrCat("  [", s.batch, ", ", s.heads, ", ", s.seq_len, ", ", s.head_dim, "]"));
  return absl::StrCat("[\n", absl::StrJoin(lines, ",\n"), "\n ]");
}

}  // namespace

std::vector<kernels::AttentionShape> FlashAttentionGrid() {
  std::vector<kernels::AttentionShape> shapes;
  for (int64_t d : kGridHeadDims)
    for (int64_t n : kGridSeqLens) shapes.push_back(Shape(kGridTokens / n, kGridWidth / d, n, d));
  return shapes;
}

std::vector<kernels::AttentionShape> LowParallelismShapes() {
  return {Shape(1, 1, 3000, 128), Shape(1, 4, 4096, 128), Shape(2, 4, 1000, 64),
          Shape(1, 8, 8192, 64),  Shape(1, 2, 5000, 256), Shape(1, 1, 8192, 256)};
}

std::vector<kernels::DType> BenchDTypes() {
  std::vector<kernels::DType> dtypes;
  for (const proto::ops::VariantSpec& variant : proto::ops::AttentionOp().variants())
    if (variant.id == proto::ops::kAttentionFused)
      if (const proto::ops::VariantSupport* cuda = variant.On(proto::ops::kCudaBackend))
        for (kernels::DType dtype : cuda->dtypes)
          if (dtype != kernels::DType::kFp8) dtypes.push_back(dtype);
  return dtypes;
}

std::string GridJson() {
  std::vector<std::string> dtypes;
  for (kernels::DType dtype : BenchDTypes())
    dtypes.push_back(absl::StrCat("\"", kernels::DTypeName(dtype), "\""));
  return absl::StrCat("{\n \"dtypes\": [", absl::StrJoin(dtypes, ", "),
                      "],\n \"grid\": ", ShapesJson(FlashAttentionGrid()),
                      ",\n \"low_par\": ", ShapesJson(LowParallelismShapes()), "\n}\n");
}

}  // namespace kbench::tools::bench
