// HistoryService: the RunHistory RPCs (kbench/v1/history.proto) over a
// RunStore. Store calls block, so each runs on the service's own
// StoreThread, never on a gRPC thread; ExportRuns reads a page at a time
// there and writes one record at a time, one write in flight.
//
// Until identities exist it serves loopback clients only (ipv4:127.x,
// ipv6:[::1], unix:) unless constructed with allow_remote; any other peer
// gets PERMISSION_DENIED saying why. Filters are checked by the store: a bad
// one is INVALID_ARGUMENT naming the field.
//
// The store must outlive the service, and the service the gRPC server that
// serves it (destroy the server first: Shutdown waits for the RPCs).
#pragma once

#include <string>

#include "kbench/v1/history.grpc.pb.h"
#include "server/store/run_store.h"
#include "server/store/store_thread.h"

namespace kbench::server {

// Whether a gRPC peer string (grpc::ServerContext::peer) is this machine:
// ipv4:127.x, ipv6:[::1] (or IPv4-mapped 127.x), unix:.
bool IsLoopbackPeer(const std::string& peer);

class HistoryService final : public v1::RunHistory::CallbackService {
 public:
  explicit HistoryService(store::RunStore& store, bool allow_remote = false);

  grpc::ServerUnaryReactor* ListRuns(grpc::CallbackServerContext* context,
                                     const v1::ListRunsRequest* request,
                                     v1::ListRunsResponse* response) override;
  grpc::ServerUnaryReactor* GetRun(grpc::CallbackServerContext* context,
                                   const v1::GetRunRequest* request,
                                   v1::RunRecord* response) override;
  grpc::ServerWriteReactor<v1::RunRecord>* ExportRuns(
      grpc::CallbackServerContext* context, const v1::ListRunsRequest* request) override;

 private:
  // OK for a peer this service serves; else PERMISSION_DENIED.
  grpc::Status CheckPeer(const grpc::CallbackServerContext& context) const;

  store::RunStore& store_;
  const bool allow_remote_;
  store::StoreThread thread_;  // last: destroyed first, finishing queued reads
};

}  // namespace kbench::server
