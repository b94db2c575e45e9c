// The CPU backend's workloads (server/worker/backends/cpu/cpu_workloads.h):
// one registered by each op's folder for every op that offers CPU variants,
// found by the op itself, never by its name.
#include <gtest/gtest.h>

#include "proto/ops/backends.h"
#include "proto/ops/registry.h"
#include "server/worker/backends/cpu/cpu_workloads.h"
#include "tests/fake_op.h"

namespace kbench::server::worker::backends::cpu {
namespace {

absl::Status NeverCancelled() { return absl::OkStatus(); }

TEST(CpuOpWorkloads, RegistersEveryOpThatOffersCpuVariantsOnce) {
  for (const proto::ops::Op* op : proto::ops::AllOps()) {
    bool offered = false;
    for (const proto::ops::VariantSpec& variant : op->variants())
      offered |= variant.On(proto::ops::kCpuBackend) != nullptr;
    int registered = 0;
    for (const CpuOpWorkload& workload : CpuOpWorkloads())
      registered += workload.op == op && workload.prepare != nullptr;
    EXPECT_EQ(registered, offered ? 1 : 0) << op->name();
  }
  EXPECT_EQ(CpuOpWorkloads().size(), proto::ops::AllOps().size());
}

TEST(CpuOpWorkloads, PreparesAProblemOfARegisteredOp) {
  const testing::FakeOp fake({"naive"});
  AdmittedRun run = fake.Run({"naive"}, 1000, TimingPlan{});
  run.problem.op = proto::ops::FindOp("vector_add");
  EXPECT_TRUE(PrepareCpuWorkload(run.problem, NeverCancelled).ok());
}

TEST(CpuOpWorkloads, RefusesAnOpItDoesNotRunEvenUnderARegisteredOpsName) {
  // The fake op calls itself vector_add; a table keyed by names took it for
  // the real one.
  const testing::FakeOp fake({"naive"});
  const absl::StatusOr<std::unique_ptr<Workload>> workload =
      PrepareCpuWorkload(fake.Run({"naive"}, 1000, TimingPlan{}).problem, NeverCancelled);
  ASSERT_FALSE(workload.ok());
  EXPECT_EQ(workload.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(workload.status().message(), "vector_add does not run on the CPU backend");
}

}  // namespace
}  // namespace kbench::server::worker::backends::cpu
