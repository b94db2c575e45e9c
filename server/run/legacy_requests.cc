#include "server/run/legacy_requests.h"

namespace kbench::server {

v1::RunRequest ToRunRequest(const v1::VectorAddRequest& r) {
  v1::RunRequest request;
  request.mutable_vector_add()->set_n(r.n());
  request.set_dtype(r.dtype());
  *request.mutable_variants() = r.variants();
  *request.mutable_timing() = r.timing();
  request.set_seed(r.seed());
  request.set_label(r.label());
  *request.mutable_kernels() = r.kernels();
  return request;
}

v1::RunRequest ToRunRequest(const v1::AttentionRequest& r) {
  v1::RunRequest request;
  v1::AttentionProblem* p = request.mutable_attention();
  p->set_batch(r.batch());
  p->set_heads(r.heads());
  p->set_seq_len(r.seq_len());
  p->set_head_dim(r.head_dim());
  p->set_causal(r.causal());
  request.set_dtype(r.dtype());
  *request.mutable_variants() = r.variants();
  *request.mutable_timing() = r.timing();
  request.set_seed(r.seed());
  request.set_label(r.label());
  *request.mutable_kernels() = r.kernels();
  return request;
}

}  // namespace kbench::server
