#include "tests/fake_op.h"

#include "proto/ops/vector_add/vector_add_op.h"

namespace kbench::testing {

FakeOp::FakeOp(std::vector<std::string> variant_names) {
  for (size_t i = 0; i < variant_names.size(); ++i)
    variants_.push_back({variant_names[i], "fake", {{"cpu", {kernels::DType::kFp32}, {}}}, int(i)});
}

const std::vector<proto::ops::ProblemField>& FakeOp::fields() const {
  return proto::ops::VectorAddOp().fields();
}

const std::vector<std::string>& FakeOp::examples() const {
  return proto::ops::VectorAddOp().examples();
}

proto::ops::Work FakeOp::WorkOf(const v1::RunRequest& request, kernels::DType dtype) const {
  return proto::ops::VectorAddOp().WorkOf(request, dtype);
}

std::unique_ptr<proto::ops::Verifier> FakeOp::MakeVerifier(const v1::RunRequest& request,
                                                           kernels::DType dtype) const {
  return proto::ops::VectorAddOp().MakeVerifier(request, dtype);
}

server::AdmittedRun FakeOp::Run(const std::vector<std::string>& names, int64_t n,
                                const server::TimingPlan& plan, uint64_t seed) const {
  server::AdmittedRun run;
  run.problem.op = this;
  run.problem.request.mutable_vector_add()->set_n(uint64_t(n));
  run.problem.request.set_seed(seed);
  for (const std::string& name : names) run.problem.variants.push_back(FindVariant(name)->id);
  run.plan = plan;
  return run;
}

}  // namespace kbench::testing
