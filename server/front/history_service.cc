#include "server/front/history_service.h"

#include <deque>
#include <mutex>
#include <string>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "kernels/common/status_macros.h"
#include "server/auth/run_access.h"
#include "server/common/status_mapping.h"

namespace kbench::server {
namespace {

// ExportRuns: pages are read on the store thread, one at a time, only once
// the previous one is written; records are written one at a time.
class ExportReactor final : public grpc::ServerWriteReactor<v1::RunRecord> {
 public:
  // Finishes at once with `refusal` when it is not OK.
  ExportReactor(store::RunStore& store, store::StoreThread& thread, v1::ListRunsRequest request,
                bool hide_peers, grpc::Status refusal)
      : store_(store),
        thread_(thread),
        request_(std::move(request)),
        hide_peers_(hide_peers),
        error_(std::move(refusal)) {
    std::unique_lock lock(mu_);
    Pump(lock);
  }

  void OnWriteDone(bool ok) override {
    std::unique_lock lock(mu_);
    write_in_flight_ = false;
    if (!ok) error_ = grpc::Status(grpc::StatusCode::CANCELLED, "stream closed");
    Pump(lock);
  }

  void OnCancel() override {
    std::unique_lock lock(mu_);
    cancelled_ = true;
    Pump(lock);
  }

  void OnDone() override { delete this; }

 private:
  // Starts the next write, the next read or the finish; unlocks. Finish
  // waits for the write or read in flight, so OnDone cannot come while a
  // read still refers to this reactor.
  void Pump(std::unique_lock<std::mutex>& lock) {
    if (finished_ || write_in_flight_ || read_in_flight_) return;
    const bool going = !cancelled_ && error_.ok();
    if (going && !pending_.empty()) {
      current_ = std::move(pending_.front());
      pending_.pop_front();
      write_in_flight_ = true;
      lock.unlock();
      StartWrite(&current_);
      return;
    }
    if (going && more_) {
      read_in_flight_ = true;
      lock.unlock();
      thread_.Post(
          [this, request = request_] { Read(store_.List(request, store::Samples::kInclude)); });
      return;
    }
    finished_ = true;
    const grpc::Status status =
        cancelled_ ? grpc::Status(grpc::StatusCode::CANCELLED, "export cancelled") : error_;
    lock.unlock();
    Finish(status);
  }

  void Read(absl::StatusOr<v1::ListRunsResponse> page) {
    std::unique_lock lock(mu_);
    read_in_flight_ = false;
    if (page.ok()) {
      for (v1::RunRecord& run : *page->mutable_runs()) {
        if (hide_peers_) run.clear_peer();
        pending_.push_back(std::move(run));
      }
      request_.set_page_token(page->next_page_token());
      more_ = !page->next_page_token().empty();
    } else {
      error_ = ToGrpcStatus(page.status());
    }
    Pump(lock);
  }

  store::RunStore& store_;
  store::StoreThread& thread_;
  std::mutex mu_;
  v1::ListRunsRequest request_;  // its page_token advances page by page
  const bool hide_peers_;
  grpc::Status error_;
  std::deque<v1::RunRecord> pending_;
  v1::RunRecord current_;  // the record being written
  bool more_ = true;
  bool write_in_flight_ = false;
  bool read_in_flight_ = false;
  bool cancelled_ = false;
  bool finished_ = false;
};

// Runs carry their clients' addresses (RunRecord.peer) to admins only.
bool SeesPeers(const absl::StatusOr<identity::Principal>& caller) {
  return caller.ok() && caller->role == identity::Role::kAdmin;
}

// The request narrowed to what the caller may read.
absl::StatusOr<v1::ListRunsRequest> Scoped(const absl::StatusOr<identity::Principal>& caller,
                                           const v1::ListRunsRequest& request) {
  if (!caller.ok()) return caller.status();
  return auth::ScopeToCaller(*caller, request);
}

}  // namespace

bool IsLoopbackPeer(const std::string& peer) {
  return absl::StartsWith(peer, "ipv4:127.") || absl::StartsWith(peer, "ipv6:[::1]") ||
         absl::StartsWith(peer, "ipv6:[::ffff:127.") || absl::StartsWith(peer, "unix:");
}

HistoryService::HistoryService(store::RunStore& store, const auth::Authenticator* authenticator,
                               store::IdentityStore* identities)
    : store_(store), authenticator_(authenticator), identities_(identities) {}

absl::StatusOr<identity::Principal> HistoryService::Caller(
    const grpc::CallbackServerContext& context) const {
  if (authenticator_ != nullptr) return authenticator_->Authenticate(context);
  const std::string peer = context.peer();
  if (IsLoopbackPeer(peer)) return identity::LocalPrincipal();
  return absl::PermissionDeniedError(absl::StrCat(
      "run history is served to loopback clients only on a server without "
      "authentication (this client is ",
      peer, "); the server's operator can add users (kbench-server admin) to turn it on"));
}

grpc::ServerUnaryReactor* HistoryService::ListRuns(grpc::CallbackServerContext* context,
                                                   const v1::ListRunsRequest* request,
                                                   v1::ListRunsResponse* response) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  const absl::StatusOr<identity::Principal> caller = Caller(*context);
  absl::StatusOr<v1::ListRunsRequest> scoped = Scoped(caller, *request);
  if (!scoped.ok()) {
    reactor->Finish(ToGrpcStatus(scoped.status()));
    return reactor;
  }
  thread_.Post(
      [this, reactor, scoped = *std::move(scoped), response, hide_peers = !SeesPeers(caller)] {
        absl::StatusOr<v1::ListRunsResponse> page = store_.List(scoped, store::Samples::kOmit);
        if (page.ok()) *response = *std::move(page);
        if (hide_peers) {
          for (v1::RunRecord& run : *response->mutable_runs()) run.clear_peer();
        }
        reactor->Finish(ToGrpcStatus(page.status()));
      });
  return reactor;
}

grpc::ServerUnaryReactor* HistoryService::GetRun(grpc::CallbackServerContext* context,
                                                 const v1::GetRunRequest* request,
                                                 v1::RunRecord* response) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  absl::StatusOr<identity::Principal> caller = Caller(*context);
  if (!caller.ok()) {
    reactor->Finish(ToGrpcStatus(caller.status()));
    return reactor;
  }
  if (request->run_id().empty()) {
    reactor->Finish(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "run_id: empty"));
    return reactor;
  }
  thread_.Post([this, reactor, request, response, caller = *std::move(caller)] {
    reactor->Finish(ToGrpcStatus([&]() -> absl::Status {
      KBENCH_ASSIGN_OR_RETURN(v1::RunRecord run, store_.Get(request->run_id()));
      if (caller.role != identity::Role::kAdmin) {
        std::string cohort;
        if (absl::StatusOr<store::UserRecord> user = identities_->FindUser(run.user()); user.ok()) {
          cohort = user->cohort;
        }
        // Another's run reads as an unknown one: ids cannot be probed.
        if (!auth::CheckRunAccess(caller, run.run_id(), run.user(), cohort).ok()) {
          return store::RunNotFoundError(request->run_id());
        }
        run.clear_peer();
      }
      *response = std::move(run);
      return absl::OkStatus();
    }()));
  });
  return reactor;
}

grpc::ServerWriteReactor<v1::RunRecord>* HistoryService::ExportRuns(
    grpc::CallbackServerContext* context, const v1::ListRunsRequest* request) {
  const absl::StatusOr<identity::Principal> caller = Caller(*context);
  absl::StatusOr<v1::ListRunsRequest> scoped = Scoped(caller, *request);
  return new ExportReactor(store_, thread_, scoped.ok() ? *scoped : *request, !SeesPeers(caller),
                           ToGrpcStatus(scoped.status()));
}

}  // namespace kbench::server
