// The KernelBench gRPC service (callback API). Reactions never block: an RPC
// only validates its request, picks a seed and a run id, and hands the run
// to the scheduler; the device's worker produces the events. Bad requests
// end at once with INVALID_ARGUMENT naming the field and the limit.
#pragma once

#include <string>

#include "kbench/v1/kbench.grpc.pb.h"
#include "server/run_call.h"
#include "server/runner.h"
#include "server/scheduler.h"

namespace kbench::server {

class KernelBenchService final : public v1::KernelBench::CallbackService {
 public:
  // The scheduler must outlive the service. limits and timing_defaults are
  // the operator's; backend is the one the scheduler's devices run.
  KernelBenchService(Scheduler& scheduler, std::string backend,
                     v1::Limits limits, TimingPlan timing_defaults);

  grpc::ServerWriteReactor<v1::RunEvent>* RunVectorAdd(
      grpc::CallbackServerContext* context,
      const v1::VectorAddRequest* request) override;
  grpc::ServerWriteReactor<v1::RunEvent>* RunAttention(
      grpc::CallbackServerContext* context,
      const v1::AttentionRequest* request) override;
  grpc::ServerUnaryReactor* GetServerInfo(grpc::CallbackServerContext* context,
                                          const v1::GetServerInfoRequest* request,
                                          v1::ServerInfo* response) override;

  // What GetServerInfo answers.
  v1::ServerInfo Info() const;

 private:
  // Queues an admitted run; returns the reactor of its stream.
  grpc::ServerWriteReactor<v1::RunEvent>* Start(std::string description,
                                                RunCall::Body body);
  std::string NewRunId();

  Scheduler& scheduler_;
  const std::string backend_;
  const v1::Limits limits_;
  const TimingPlan timing_defaults_;
  std::vector<v1::OpInfo> ops_;
};

}  // namespace kbench::server
