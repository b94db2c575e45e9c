// Naive attention, steps 1 and 3 of 3: the two batched GEMMs of the TinyGPT
// replica (attention.h), one cuBLAS strided-batched call each (batch =
// batch * heads), as PyTorch eager issues them for q @ k.transpose(-2, -1)
// and p @ v. What differs from eager: the scale rides in the first GEMM's
// alpha instead of a separate elementwise pass (eager's `* scale` costs one
// more read and write of S), so this replica is, if anything, faster.
// Precision: inputs and S/P in the problem's dtype, CUBLAS_COMPUTE_32F
// accumulation; for fp32 that is plain FMA (no TF32: the handle's math mode
// is left at CUBLAS_DEFAULT_MATH and the compute type is not _FAST_TF32).
// Tolerance: fp32 2e-5, fp16/bf16 1e-2 relative L2 (kernels/dtype.h).
//
// Row-major X[rows][cols] is column-major X^T with leading dimension cols,
// so with Q, K, V, O row-major [N][d] and S, P row-major [N][N]:
//   S^T = K Q^T : C (N x N, ldc N) = op_T(K as d x N, lda d) * (Q as d x N)
//   O^T = V^T P^T: C (d x N, ldc d) = (V as d x N, lda d) * (P as N x N, ldb N)
#include <algorithm>
#include <cmath>

#include "kernels/cuda/attention/attention.h"

namespace kbench::kernels::cuda {
namespace {

// cuBLAS launches a batch on one grid dimension; keep each call's batch
// within 65535 so any batch * heads works.
constexpr int64_t kMaxBatchPerCall = 65535;

cudaDataType_t CudaType(DType dtype) {
  switch (dtype) {
    case DType::kFp32:
      return CUDA_R_32F;
    case DType::kFp16:
      return CUDA_R_16F;
    case DType::kBf16:
      return CUDA_R_16BF;
    case DType::kFp8:  // refused by Valid: naive widens fp8 to bf16 first
      break;
  }
  return CUDA_R_32F;
}

struct GemmSpec {
  cublasOperation_t trans_a, trans_b;
  int m, n, k;
  const void* a;
  int lda;
  int64_t stride_a;
  const void* b;
  int ldb;
  int64_t stride_b;
  void* c;
  int ldc;
  int64_t stride_c;
  float alpha;
};

cublasStatus_t BatchedGemm(cublasHandle_t handle, DType dtype, int64_t batch, const GemmSpec& g) {
  const cudaDataType_t type = CudaType(dtype);
  const int64_t bytes = DTypeBytes(dtype);
  const float beta = 0.0f;
  for (int64_t first = 0; first < batch; first += kMaxBatchPerCall) {
    const int count = int(std::min(kMaxBatchPerCall, batch - first));
    const auto* a = static_cast<const char*>(g.a) + first * g.stride_a * bytes;
    const auto* b = static_cast<const char*>(g.b) + first * g.stride_b * bytes;
    auto* c = static_cast<char*>(g.c) + first * g.stride_c * bytes;
    const cublasStatus_t status = cublasGemmStridedBatchedEx(
        handle, g.trans_a, g.trans_b, g.m, g.n, g.k, &g.alpha, a, type, g.lda, g.stride_a, b, type,
        g.ldb, g.stride_b, &beta, c, type, g.ldc, g.stride_c, count, CUBLAS_COMPUTE_32F,
        CUBLAS_GEMM_DEFAULT);
    if (status != CUBLAS_STATUS_SUCCESS) return status;
  }
  return CUBLAS_STATUS_SUCCESS;
}

bool Valid(const AttentionShape& shape, DType dtype) {
  return dtype != DType::kFp8 && shape.seq_len >= 1 && shape.seq_len <= INT32_MAX &&
         shape.head_dim >= 1 && shape.head_dim <= INT32_MAX && shape.BatchHeads() >= 1;
}

}  // namespace

cublasStatus_t AttentionScoresGemm(cublasHandle_t handle, const AttentionShape& shape, DType dtype,
                                   const void* q, const void* k, void* scores) {
  if (!Valid(shape, dtype)) return CUBLAS_STATUS_INVALID_VALUE;
  const int n = int(shape.seq_len), d = int(shape.head_dim);
  GemmSpec g{};
  g.trans_a = CUBLAS_OP_T;
  g.trans_b = CUBLAS_OP_N;
  g.m = n;
  g.n = n;
  g.k = d;
  g.a = k;
  g.lda = d;
  g.stride_a = int64_t(n) * d;
  g.b = q;
  g.ldb = d;
  g.stride_b = int64_t(n) * d;
  g.c = scores;
  g.ldc = n;
  g.stride_c = int64_t(n) * n;
  g.alpha = float(1.0 / std::sqrt(double(d)));
  return BatchedGemm(handle, dtype, shape.BatchHeads(), g);
}

cublasStatus_t AttentionOutputGemm(cublasHandle_t handle, const AttentionShape& shape, DType dtype,
                                   const void* probs, const void* v, void* o) {
  if (!Valid(shape, dtype)) return CUBLAS_STATUS_INVALID_VALUE;
  const int n = int(shape.seq_len), d = int(shape.head_dim);
  GemmSpec g{};
  g.trans_a = CUBLAS_OP_N;
  g.trans_b = CUBLAS_OP_N;
  g.m = d;
  g.n = n;
  g.k = n;
  g.a = v;
  g.lda = d;
  g.stride_a = int64_t(n) * d;
  g.b = probs;
  g.ldb = n;
  g.stride_b = int64_t(n) * n;
  g.c = o;
  g.ldc = d;
  g.stride_c = int64_t(n) * d;
  g.alpha = 1.0f;
  return BatchedGemm(handle, dtype, shape.BatchHeads(), g);
}

}  // namespace kbench::kernels::cuda
