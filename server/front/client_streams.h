// How many Run streams each client has open, against
// Limits.max_streams_per_client. A stream counts from its admission until
// its RPC is done (the reactor's OnDone), not only while its run waits or
// runs: a client that opens streams and never reads them holds them all.
// A client is its principal's user, or for the anonymous caller of a server
// without identities its address without the port ("ipv4:127.0.0.1").
// Thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "absl/status/statusor.h"
#include "server/identity/principal.h"

namespace kbench::server {

class ClientStreams {
 public:
  // Releases its stream when destroyed.
  using Slot = std::shared_ptr<void>;

  explicit ClientStreams(uint32_t max_per_client) : max_per_client_(max_per_client) {}

  // A slot for one more stream of the client, or RESOURCE_EXHAUSTED naming
  // the limit. The ClientStreams must outlive its slots.
  absl::StatusOr<Slot> Open(const identity::Principal& principal, const std::string& peer);

  // The client a stream counts against.
  static std::string ClientOf(const identity::Principal& principal, const std::string& peer);

 private:
  const uint32_t max_per_client_;
  std::mutex mu_;
  std::map<std::string, uint32_t> open_;
};

}  // namespace kbench::server
