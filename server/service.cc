#include "server/service.h"

#include <random>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "server/status_mapping.h"
#include "server/limits.h"
#include "server/validation.h"
#include "server/version.h"

namespace kbench::server {
namespace {

// A stream refused before it started: finishes at once with the error.
class RefusedStream final : public grpc::ServerWriteReactor<v1::RunEvent> {
 public:
  explicit RefusedStream(const absl::Status& status) { Finish(ToGrpcStatus(status)); }
  void OnDone() override { delete this; }
};

uint64_t RandomSeed() {
  static std::mutex mu;
  static std::mt19937_64 rng{std::random_device{}()};
  std::lock_guard lock(mu);
  uint64_t seed = 0;
  while (seed == 0) seed = rng();
  return seed;
}

std::string Description(const AdmittedRun<VectorAddProblem>& run) {
  return absl::StrCat("vector_add n=", run.problem.n, " ",
                      kernels::DTypeName(run.problem.dtype), " [",
                      absl::StrJoin(run.problem.variants, ","), "]",
                      run.label.empty() ? "" : " label=" + run.label);
}

std::string Description(const AdmittedRun<AttentionProblem>& run) {
  const auto& s = run.problem.shape;
  return absl::StrCat("attention B=", s.batch, " H=", s.heads, " N=", s.seq_len,
                      " d=", s.head_dim, s.causal ? " causal " : " ",
                      kernels::DTypeName(run.problem.dtype), " [",
                      absl::StrJoin(run.problem.variants, ","), "]",
                      run.label.empty() ? "" : " label=" + run.label);
}

}  // namespace

KernelBenchService::KernelBenchService(Scheduler& scheduler, std::string backend,
                                       v1::Limits limits, TimingPlan timing_defaults)
    : scheduler_(scheduler),
      backend_(std::move(backend)),
      limits_(std::move(limits)),
      timing_defaults_(timing_defaults) {
  // Every device of one server runs the same backend; the first speaks for all.
  if (!scheduler_.devices().empty()) ops_ = scheduler_.devices().front()->Ops();
}

std::string KernelBenchService::NewRunId() {
  return absl::StrFormat("run-%012x", RandomSeed() & 0xFFFFFFFFFFFFull);
}

grpc::ServerWriteReactor<v1::RunEvent>* KernelBenchService::Start(
    std::string description, RunCall::Body body) {
  auto call = std::make_shared<RunCall>(NewRunId(), std::move(description),
                                        scheduler_, std::move(body));
  auto* reactor = new RunReactor(call);
  if (absl::Status submitted = scheduler_.Submit(call); !submitted.ok())
    call->Finish(ToGrpcStatus(submitted));
  return reactor;
}

grpc::ServerWriteReactor<v1::RunEvent>* KernelBenchService::RunVectorAdd(
    grpc::CallbackServerContext*, const v1::VectorAddRequest* request) {
  auto admitted = ValidateVectorAdd(*request, limits_, ops_, timing_defaults_);
  if (!admitted.ok()) return new RefusedStream(admitted.status());
  if (admitted->problem.seed == 0) admitted->problem.seed = RandomSeed();
  std::string description = Description(*admitted);
  return Start(std::move(description),
               [run = std::move(*admitted)](Device& device, const std::string& run_id,
                                            RunSink& sink) {
                 return RunVectorAddJob(device, run.problem, run.plan, run_id, sink);
               });
}

grpc::ServerWriteReactor<v1::RunEvent>* KernelBenchService::RunAttention(
    grpc::CallbackServerContext*, const v1::AttentionRequest* request) {
  auto admitted = ValidateAttention(*request, limits_, ops_, timing_defaults_);
  if (!admitted.ok()) return new RefusedStream(admitted.status());
  if (admitted->problem.seed == 0) admitted->problem.seed = RandomSeed();
  std::string description = Description(*admitted);
  return Start(std::move(description),
               [run = std::move(*admitted)](Device& device, const std::string& run_id,
                                            RunSink& sink) {
                 return RunAttentionJob(device, run.problem, run.plan, run_id, sink);
               });
}

v1::ServerInfo KernelBenchService::Info() const {
  v1::ServerInfo info;
  info.set_version(kVersion);
  info.set_backend(backend_);
  for (const auto& device : scheduler_.devices()) {
    v1::DeviceInfo d = device->Info();
    d.set_healthy(device->Healthy());
    *info.add_devices() = std::move(d);
  }
  for (const auto& op : ops_) *info.add_ops() = op;
  *info.mutable_limits() = limits_;
  *info.mutable_default_timing() = ToProto(timing_defaults_);
  info.set_running(scheduler_.running());
  info.set_queued(scheduler_.queued());
  return info;
}

grpc::ServerUnaryReactor* KernelBenchService::GetServerInfo(
    grpc::CallbackServerContext* context, const v1::GetServerInfoRequest*,
    v1::ServerInfo* response) {
  *response = Info();
  auto* reactor = context->DefaultReactor();
  reactor->Finish(grpc::Status::OK);
  return reactor;
}

}  // namespace kbench::server
