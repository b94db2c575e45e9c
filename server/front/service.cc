#include "server/front/service.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "openssl/rand.h"
#include "proto/ops/registry.h"
#include "server/common/log.h"
#include "server/common/status_mapping.h"
#include "server/common/version.h"
#include "server/front/refusal.h"
#include "server/front/run_call.h"
#include "server/run/kernel_admission.h"
#include "server/run/legacy_requests.h"
#include "server/run/refused_request.h"
#include "server/run/timing_resolution.h"
#include "server/run/validation.h"

namespace kbench::server {
namespace {

// A stream refused before it started: finishes at once with the error.
class RefusedStream final : public grpc::ServerWriteReactor<v1::RunEvent> {
 public:
  explicit RefusedStream(const absl::Status& status) { Finish(ToGrpcStatus(status)); }
  void OnDone() override { delete this; }
};

// Run ids and seeds from OpenSSL's CSPRNG: a run id is the only name of a
// run, so it must not be guessable from others (a generator seeded with 32
// bits is, from one id it gives); never 0, which means "none".
uint64_t RandomNumber() {
  uint64_t value = 0;
  while (value == 0) {
    if (RAND_bytes(reinterpret_cast<unsigned char*>(&value), sizeof(value)) != 1) {
      // The kernel's generator failed: nothing safe can be made of it.
      std::abort();
    }
  }
  return value;
}

// A stalled reader is found within a quarter of the limit (at most a
// second late).
std::chrono::steady_clock::duration WatchPeriod(double stall_seconds) {
  const double seconds = std::clamp(stall_seconds / 4, 0.01, 1.0);
  return std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      std::chrono::duration<double>(seconds));
}

int64_t UnixMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

KernelBenchService::KernelBenchService(Scheduler& scheduler, ServiceOptions options,
                                       std::vector<RunObserver*> observers)
    : scheduler_(scheduler),
      options_(std::move(options)),
      local_queue_(scheduler),
      queue_(options_.queue != nullptr ? *options_.queue : local_queue_),
      observers_([&] {
        if (options_.quotas) observers.push_back(options_.quotas);
        return std::move(observers);
      }()),
      streams_(options_.limits.max_streams_per_client()),
      reader_watch_(WatchPeriod(options_.limits.max_reader_stall_seconds())) {}

std::string KernelBenchService::Backend() const {
  return scheduler_.executors().empty() ? "" : scheduler_.executors().front()->Info().backend();
}

grpc::ServerWriteReactor<v1::RunEvent>* KernelBenchService::Start(
    grpc::CallbackServerContext* context, const v1::RunRequest& request) {
  RunAdmission admission;
  admission.run_id = absl::StrFormat("run-%012x", RandomNumber() & 0xFFFFFFFFFFFFull);
  admission.peer = context->peer();
  admission.unix_ms = UnixMs();
  admission.request = request;
  if (const proto::ops::Op* op = proto::ops::OpOf(request)) admission.op = std::string(op->name());

  absl::StatusOr<identity::Principal> principal =
      options_.authenticator ? options_.authenticator->Authenticate(*context)
                             : identity::LocalPrincipal();
  // An unauthenticated call is not recorded: it has no one to record it for.
  if (!principal.ok()) return new RefusedStream(principal.status());
  admission.principal = *principal;
  // Refused requests count too, so that a flood of them is refused as well;
  // one over the rate is not recorded, so what a flood writes to the store
  // is bounded by the rate.
  if (options_.quotas)
    if (absl::Status within = options_.quotas->CountRequest(admission); !within.ok())
      return new RefusedStream(within);

  auto refuse = [&](const absl::Status& why) {
    KeptRequest kept = KeepRefused(admission.request, options_.limits);
    admission.request = std::move(kept.request);
    admission.sanitized = kept.sanitized;
    for (RunObserver* o : observers_) o->OnRefused(admission, why);
    return new RefusedStream(why);
  };
  if (request.fault() != v1::FAULT_NONE && !options_.enable_fault_injection)
    return refuse(
        absl::PermissionDeniedError("fault: fault injection is refused unless the server runs with "
                                    "--enable-fault-injection"));
  // A fault stops a worker every learner's runs share.
  if (request.fault() != v1::FAULT_NONE && !admission.principal.AtLeast(identity::Role::kAdmin))
    return refuse(absl::PermissionDeniedError(
        absl::StrCat("fault: fault injection is for admins, not ",
                     std::string(identity::RoleWithArticle(admission.principal.role)))));
  if (draining_)
    return refuse(absl::UnavailableError(
        "server is draining: it is shutting down once its running runs end; retry on "
        "another server or once it is back"));
  absl::StatusOr<AdmittedRun> admitted = AdmitRequest(request);
  if (!admitted.ok()) return refuse(admitted.status());
  if (admitted->problem.request.seed() == 0) admitted->problem.request.set_seed(RandomNumber());
  admission.request = Resolved(*admitted);
  absl::StatusOr<ClientStreams::Slot> slot = streams_.Open(admission.principal, admission.peer);
  if (!slot.ok()) return refuse(slot.status());

  std::string description =
      absl::StrCat(admitted->problem.op->Describe(admitted->problem.request), " ",
                   kernels::DTypeName(admitted->problem.dtype), " [",
                   absl::StrJoin(admission.request.variants(), ","), "]",
                   request.label().empty() ? "" : " label=" + Quoted(request.label()));
  if (options_.quotas)
    if (absl::Status within = options_.quotas->Admit(admission); !within.ok())
      return refuse(within);
  auto call = std::make_shared<RunCall>(
      admission.run_id, admission.principal, std::move(description), *std::move(admitted), queue_,
      observers_, *std::move(slot),
      std::chrono::duration<double>(options_.limits.max_reader_stall_seconds()));
  auto* reactor = RunCall::NewReactor(call);
  reader_watch_.Watch(call);
  std::optional<absl::Status> revoked;
  {
    std::lock_guard lock(calls_mu_);
    // Closes the race where the caller's token was checked just before its
    // revocation and the run arrives here just after CancelRunsOf looked.
    if (const auto found = revoked_.find(admission.principal.user); found != revoked_.end()) {
      revoked = found->second;
    } else {
      std::erase_if(calls_, [](const std::weak_ptr<RunCall>& c) { return c.expired(); });
      calls_.push_back(call);
    }
  }
  for (RunObserver* o : observers_) o->OnAccepted(admission);
  if (revoked) {
    call->Finish(*revoked);
  } else if (absl::Status submitted = queue_.Submit(call); !submitted.ok()) {
    call->Finish(submitted);
  }
  return reactor;
}

grpc::ServerWriteReactor<v1::RunEvent>* KernelBenchService::Run(
    grpc::CallbackServerContext* context, const v1::RunRequest* request) {
  return Start(context, *request);
}

grpc::ServerWriteReactor<v1::RunEvent>* KernelBenchService::RunVectorAdd(
    grpc::CallbackServerContext* context, const v1::VectorAddRequest* request) {
  return Start(context, ToRunRequest(*request));
}

grpc::ServerWriteReactor<v1::RunEvent>* KernelBenchService::RunAttention(
    grpc::CallbackServerContext* context, const v1::AttentionRequest* request) {
  return Start(context, ToRunRequest(*request));
}

void KernelBenchService::Drain() { draining_ = true; }

void KernelBenchService::CancelRuns(const absl::Status& why) {
  std::vector<std::weak_ptr<RunCall>> calls;
  {
    std::lock_guard lock(calls_mu_);
    calls.swap(calls_);
  }
  for (const std::weak_ptr<RunCall>& weak : calls)
    if (std::shared_ptr<RunCall> call = weak.lock()) call->ServerCancelled(why);
}

void KernelBenchService::CancelRunsOf(const std::string& user, const absl::Status& why) {
  std::vector<std::shared_ptr<RunCall>> theirs;
  {
    std::lock_guard lock(calls_mu_);
    revoked_.emplace(user, why);
    for (const std::weak_ptr<RunCall>& weak : calls_)
      if (std::shared_ptr<RunCall> call = weak.lock(); call && call->principal().user == user)
        theirs.push_back(std::move(call));
  }
  for (const std::shared_ptr<RunCall>& call : theirs) call->ServerCancelled(why);
}

v1::ServerInfo KernelBenchService::Info() const {
  v1::ServerInfo info;
  info.set_version(kVersion);
  info.set_backend(Backend());
  for (const auto& executor : scheduler_.executors()) *info.add_devices() = executor->Info();
  for (v1::OpInfo& op : proto::ops::OffersOf(Backend())) *info.add_ops() = std::move(op);
  *info.mutable_limits() = options_.limits;
  *info.mutable_default_timing() = ToProto(options_.timing_defaults);
  const RunCounts counts = queue_.Counts();
  info.set_running(counts.running);
  info.set_queued(counts.queued);
  return info;
}

absl::Status KernelBenchService::CheckRequest(const v1::RunRequest& request) const {
  return AdmitRequest(request).status();
}

absl::StatusOr<AdmittedRun> KernelBenchService::AdmitRequest(const v1::RunRequest& request) const {
  return Admit(request, options_.limits, Backend(), options_.timing_defaults);
}

grpc::ServerUnaryReactor* KernelBenchService::CompileKernel(grpc::CallbackServerContext* context,
                                                            const v1::CompileKernelRequest* request,
                                                            v1::CompileFacts* response) {
  auto* reactor = context->DefaultReactor();
  auto finish = [reactor](const absl::Status& status) {
    reactor->Finish(ToGrpcStatus(status));
    return reactor;
  };
  if (options_.authenticator != nullptr)
    if (absl::StatusOr<identity::Principal> caller = options_.authenticator->Authenticate(*context);
        !caller.ok())
      return finish(caller.status());
  if (draining_) return finish(absl::UnavailableError("server is draining: it is shutting down"));
  if (absl::Status admitted = CheckCompileRequest(*request, options_.limits); !admitted.ok())
    return finish(admitted);
  Executor* executor = nullptr;
  for (const auto& e : scheduler_.executors())
    if (e->Ready()) {
      executor = e.get();
      break;
    }
  if (executor == nullptr)
    return finish(absl::UnavailableError(
        "no device is ready to compile (its worker is starting or restarting); retry"));
  if (absl::Status queued = compiles_.Submit([executor, request, response, reactor] {
        absl::StatusOr<v1::CompileFacts> facts = executor->Compile(*request);
        if (facts.ok()) *response = *std::move(facts);
        reactor->Finish(ToGrpcStatus(facts.status()));
      });
      !queued.ok())
    return finish(
        Refused(v1::Refusal::REASON_COMPILES, absl::StrCat("compiles: ", queued.message())));
  return reactor;
}

grpc::ServerUnaryReactor* KernelBenchService::GetServerInfo(grpc::CallbackServerContext* context,
                                                            const v1::GetServerInfoRequest*,
                                                            v1::ServerInfo* response) {
  auto* reactor = context->DefaultReactor();
  if (options_.authenticator != nullptr) {
    if (absl::StatusOr<identity::Principal> caller = options_.authenticator->Authenticate(*context);
        !caller.ok()) {
      reactor->Finish(ToGrpcStatus(caller.status()));
      return reactor;
    }
  }
  *response = Info();
  reactor->Finish(grpc::Status::OK);
  return reactor;
}

}  // namespace kbench::server
