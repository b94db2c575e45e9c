#include "proto/ops/kernel_abi.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace kbench::ops {
namespace {

using kernels::DType;

const std::vector<KernelAbi>& Abis() {
  // Parameter sizes are those of the 64-bit ABI: pointers and long long 8
  // bytes, int and float 4. Attention's causal is an int (0 or 1), not a
  // bool, so that PTX written by hand has one obvious size for it.
  static const std::vector<KernelAbi> abis = {
      {"vector_add",
       {{"const kbench_t* a", 8}, {"const kbench_t* b", 8}, {"kbench_t* c", 8},
        {"long long n", 8}},
       {"n"},
       {DType::kFp32}},
      {"attention",
       {{"const kbench_t* q", 8},
        {"const kbench_t* k", 8},
        {"const kbench_t* v", 8},
        {"kbench_t* o", 8},
        {"int B", 4},
        {"int H", 4},
        {"int N", 4},
        {"int d", 4},
        {"float scale", 4},
        {"int causal", 4}},
       {"B", "H", "N", "d"},
       {DType::kFp32, DType::kFp16, DType::kBf16}},
  };
  return abis;
}

}  // namespace

std::string KernelAbi::Signature() const {
  std::vector<std::string> declarations;
  for (const AbiParameter& p : parameters) declarations.push_back(p.declaration);
  return absl::StrCat("(", absl::StrJoin(declarations, ", "), ")");
}

bool KernelAbi::Supports(DType dtype) const {
  for (DType d : dtypes)
    if (d == dtype) return true;
  return false;
}

const KernelAbi* AbiOf(std::string_view op) {
  for (const KernelAbi& abi : Abis())
    if (abi.op == op) return &abi;
  return nullptr;
}

std::vector<int64_t> SizeValues(const KernelAbi& abi, const v1::RunRequest& request) {
  if (abi.op == "vector_add") return {int64_t(request.vector_add().n())};
  const v1::AttentionProblem& p = request.attention();
  return {p.batch(), p.heads(), p.seq_len(), p.head_dim()};
}

std::string KernelPrelude(DType dtype) {
  switch (dtype) {
    case DType::kFp16:
      return "#include <cuda_fp16.h>\n#define KBENCH_DTYPE_FP16 1\ntypedef __half kbench_t;\n";
    case DType::kBf16:
      return "#include <cuda_bf16.h>\n#define KBENCH_DTYPE_BF16 1\n"
             "typedef __nv_bfloat16 kbench_t;\n";
    case DType::kFp32:
      break;
  }
  return "#define KBENCH_DTYPE_FP32 1\ntypedef float kbench_t;\n";
}

}  // namespace kbench::ops
