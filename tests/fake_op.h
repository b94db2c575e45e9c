// A vector-add-like op for tests of the runner and the scheduler, whose
// variants are whatever names a test gives (the registry's ops have fixed
// variants). Its work and verification are vector add's (c = a + b from
// the seed), so a FakeDevice's output is checked for real.
#pragma once

#include <string>
#include <vector>

#include "proto/ops/op.h"
#include "server/run/run_plan.h"

namespace kbench::testing {

class FakeOp final : public proto::ops::Op {
 public:
  // Variants with ids 0, 1, ... in this order, run by backend "cpu" in fp32.
  explicit FakeOp(std::vector<std::string> variant_names);

  std::string_view name() const override { return "vector_add"; }
  std::string_view description() const override { return "fake vector add"; }
  v1::RunRequest::ProblemCase problem_case() const override { return v1::RunRequest::kVectorAdd; }
  const google::protobuf::Message& Problem(const v1::RunRequest& r) const override {
    return r.vector_add();
  }
  google::protobuf::Message* MutableProblem(v1::RunRequest& r) const override {
    return r.mutable_vector_add();
  }
  const std::vector<proto::ops::ProblemField>& fields() const override;
  const std::vector<std::string>& examples() const override;
  const std::vector<proto::ops::VariantSpec>& variants() const override { return variants_; }
  void SetDefaultLimits(const v1::DeviceInfo&, v1::Limits&) const override {}
  std::vector<std::pair<std::string, std::string>> LimitHelp() const override { return {}; }
  absl::Status CheckProblem(const v1::RunRequest&, const v1::Limits&) const override {
    return absl::OkStatus();
  }
  proto::ops::Work WorkOf(const v1::RunRequest& request, kernels::DType dtype) const override;
  std::unique_ptr<proto::ops::Verifier> MakeVerifier(const v1::RunRequest& request,
                                                     kernels::DType dtype) const override;

  // An admitted run of every variant named, in that order, over n elements.
  server::AdmittedRun Run(const std::vector<std::string>& names, int64_t n,
                          const server::TimingPlan& plan, uint64_t seed = 42) const;

 private:
  std::vector<proto::ops::VariantSpec> variants_;
};

}  // namespace kbench::testing
