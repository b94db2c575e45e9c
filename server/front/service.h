// The KernelBench gRPC service (callback API). Reactions never block (but
// for the learner quotas' one indexed device-time query on the results
// store, quota_gate.h): an RPC only admits its request (validation.h, generic over the ops), picks
// a seed and a run id, and hands the run to the scheduler; a device's executor produces the events.
// Bad requests end at once with INVALID_ARGUMENT naming the field and the limit; runs over a
// learner's quota with RESOURCE_EXHAUSTED (quota_gate.h). A refused request reaches the observers
// (the store) bounded (refused_request.h), and not at all when it is over its learner's runs per
// minute. RunVectorAdd and RunAttention are Run with the op's problem. Each client may hold
// Limits.max_streams_per_client Run streams open (client_streams.h); a stream whose client stops
// reading for Limits.max_reader_stall_seconds has its run cancelled (reader_watch.h). CompileKernel
// admits a learner's kernel and compiles it on a ready device's executor (its worker), never in the
// front.
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "kbench/v1/kbench.grpc.pb.h"
#include "server/auth/authenticator.h"
#include "server/common/task_pool.h"
#include "server/front/client_streams.h"
#include "server/front/quota_gate.h"
#include "server/front/reader_watch.h"
#include "server/front/run_call.h"
#include "server/front/scheduler.h"
#include "server/run/run_observer.h"
#include "server/run/run_plan.h"

namespace kbench::server {

struct ServiceOptions {
  v1::Limits limits;
  TimingPlan timing_defaults;
  // Refuse Fault requests (PERMISSION_DENIED) unless set; callers other
  // than admins are refused them always.
  bool enable_fault_injection = false;
  // Who the callers are; null: a server without identities (every caller is
  // identity::LocalPrincipal()). Must outlive the service.
  const auth::Authenticator* authenticator = nullptr;
  // Per-learner quotas: every request counts toward the runs per minute
  // before it is checked (refused ones too); the others are checked after
  // validation. It also observes every run it admitted. Null: no quotas.
  // Must outlive the service.
  QuotaGate* quotas = nullptr;
  // Where admitted runs wait (run_queue.h): null, this server's devices
  // (its scheduler); else, e.g., the queue shared by the servers of one
  // store. Must outlive the service.
  RunQueue* queue = nullptr;
};

class KernelBenchService final : public v1::KernelBench::CallbackService {
 public:
  // The scheduler and the observers must outlive the service. Every device
  // of one server runs the same backend: the first executor's.
  KernelBenchService(Scheduler& scheduler, ServiceOptions options,
                     std::vector<RunObserver*> observers = {});

  grpc::ServerWriteReactor<v1::RunEvent>* Run(grpc::CallbackServerContext* context,
                                              const v1::RunRequest* request) override;
  grpc::ServerWriteReactor<v1::RunEvent>* RunVectorAdd(
      grpc::CallbackServerContext* context, const v1::VectorAddRequest* request) override;
  grpc::ServerWriteReactor<v1::RunEvent>* RunAttention(
      grpc::CallbackServerContext* context, const v1::AttentionRequest* request) override;
  // Admits the kernel (kernel_admission.h), then compiles it on a ready
  // device's executor from a thread of compiles_ (a compile takes up to
  // seconds; reactions never block).
  grpc::ServerUnaryReactor* CompileKernel(grpc::CallbackServerContext* context,
                                          const v1::CompileKernelRequest* request,
                                          v1::CompileFacts* response) override;
  grpc::ServerUnaryReactor* GetServerInfo(grpc::CallbackServerContext* context,
                                          const v1::GetServerInfoRequest* request,
                                          v1::ServerInfo* response) override;

  // What GetServerInfo answers.
  v1::ServerInfo Info() const;
  // What Run's admission says of `request` (validation.h's Admit with this
  // server's limits, backend and timing defaults); OK when it would admit
  // it. The assignment service checks problems and submissions by it.
  absl::Status CheckRequest(const v1::RunRequest& request) const;
  // The same admission, with what it admitted: how a server runs a request
  // that another server of a shared queue admitted.
  absl::StatusOr<AdmittedRun> AdmitRequest(const v1::RunRequest& request) const;

  // Shutdown, in two steps. Drain: from now on new runs are refused with
  // UNAVAILABLE "server is draining: ..." (the port stays open, so clients
  // get that answer rather than a refused connection) while admitted runs
  // go on. CancelRuns: every run still going or waiting ends with `why`
  // (the server's reason, logged as such), before the gRPC server shuts
  // down.
  void Drain();

  static constexpr size_t kCompileThreads = 4;
  static constexpr size_t kMaxQueuedCompiles = 32;
  void CancelRuns(const absl::Status& why);

  // Ends every admitted run of `user` with `why`: a waiting one leaves the
  // queue without starting, a running one is stopped, and their streams
  // end with `why` at once. For a revoked user (revocation_watch.h).
  void CancelRunsOf(const std::string& user, const absl::Status& why);

 private:
  grpc::ServerWriteReactor<v1::RunEvent>* Start(grpc::CallbackServerContext* context,
                                                const v1::RunRequest& request);
  std::string Backend() const;

  Scheduler& scheduler_;
  const ServiceOptions options_;
  LocalQueue local_queue_;
  RunQueue& queue_;  // options_.queue, else local_queue_
  const std::vector<RunObserver*> observers_;
  ClientStreams streams_;
  std::atomic<bool> draining_{false};
  // Every admitted run whose RPC is not done, for CancelRuns and
  // CancelRunsOf.
  std::mutex calls_mu_;
  std::vector<std::weak_ptr<RunCall>> calls_;
  // Compiles waiting for, or on, a device's executor.
  TaskPool compiles_{kCompileThreads, kMaxQueuedCompiles};
  // The users CancelRunsOf ended, and why: their later runs end so too.
  std::map<std::string, absl::Status> revoked_;
  // Declared last: its thread stops first.
  ReaderWatch reader_watch_;
};

}  // namespace kbench::server
