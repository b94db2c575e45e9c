// HistoryService: the RunHistory RPCs (kbench/v1/history.proto) over a
// RunStore. Store calls block, so each runs on the service's own
// StoreThread, never on a gRPC thread; ExportRuns reads a page at a time
// there and writes one record at a time, one write in flight.
//
// With an authenticator (a server with authentication) each caller reads
// what their role allows (server/auth/run_access.h): a learner their own
// runs, an instructor their cohort's, an admin all; no valid token is
// UNAUTHENTICATED, a list of another's runs PERMISSION_DENIED, and GetRun of
// another's run the NOT_FOUND of an unknown id (store::RunNotFoundError).
// Runs carry their clients' addresses (RunRecord.peer) to admins only, and
// to the anonymous local caller. Without one it serves
// loopback clients only (ipv4:127.x, ipv6:[::1], unix:); any other peer
// gets PERMISSION_DENIED saying why. Filters are checked by the store: a bad
// one is INVALID_ARGUMENT naming the field.
//
// The store, the authenticator and the identities must outlive the service,
// and the service the gRPC server that serves it (destroy the server first:
// Shutdown waits for the RPCs).
#pragma once

#include <string>

#include "kbench/v1/history.grpc.pb.h"
#include "server/auth/authenticator.h"
#include "server/store/identity_store.h"
#include "server/store/run_store.h"
#include "server/store/store_thread.h"

namespace kbench::server {

// Whether a gRPC peer string (grpc::ServerContext::peer) is this machine:
// ipv4:127.x, ipv6:[::1] (or IPv4-mapped 127.x), unix:.
bool IsLoopbackPeer(const std::string& peer);

class HistoryService final : public v1::RunHistory::CallbackService {
 public:
  // `identities` (the cohorts of the runs' users) is required with an
  // authenticator.
  explicit HistoryService(store::RunStore& store,
                          const auth::Authenticator* authenticator = nullptr,
                          store::IdentityStore* identities = nullptr);

  grpc::ServerUnaryReactor* ListRuns(grpc::CallbackServerContext* context,
                                     const v1::ListRunsRequest* request,
                                     v1::ListRunsResponse* response) override;
  grpc::ServerUnaryReactor* GetRun(grpc::CallbackServerContext* context,
                                   const v1::GetRunRequest* request,
                                   v1::RunRecord* response) override;
  grpc::ServerWriteReactor<v1::RunRecord>* ExportRuns(grpc::CallbackServerContext* context,
                                                      const v1::ListRunsRequest* request) override;

 private:
  // Who calls: the authenticator's principal, or, without one, the
  // anonymous local caller if the peer is loopback (else PERMISSION_DENIED).
  absl::StatusOr<identity::Principal> Caller(const grpc::CallbackServerContext& context) const;

  store::RunStore& store_;
  const auth::Authenticator* const authenticator_;
  store::IdentityStore* const identities_;
  store::StoreThread thread_;  // last: destroyed first, finishing queued reads
};

}  // namespace kbench::server
