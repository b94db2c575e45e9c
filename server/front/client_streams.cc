#include "server/front/client_streams.h"

#include "absl/strings/str_cat.h"
#include "server/front/refusal.h"

namespace kbench::server {

std::string ClientStreams::ClientOf(const identity::Principal& principal, const std::string& peer) {
  if (!principal.user.empty()) return "user " + principal.user;
  const size_t port = peer.rfind(':');
  return port == std::string::npos ? peer : peer.substr(0, port);
}

absl::StatusOr<ClientStreams::Slot> ClientStreams::Open(const identity::Principal& principal,
                                                        const std::string& peer) {
  const std::string client = ClientOf(principal, peer);
  std::lock_guard lock(mu_);
  uint32_t& open = open_[client];
  if (open >= max_per_client_)
    return Refused(v1::Refusal::REASON_STREAMS,
                   absl::StrCat("streams: ", client, " has ", open,
                                " Run streams open, the most one client may "
                                "(Limits.max_streams_per_client = ",
                                max_per_client_,
                                "); wait for one to end before starting another, or run "
                                "them one after another (kbench sweep queues points so)"));
  ++open;
  return Slot(nullptr, [this, client](void*) {
    std::lock_guard lock(mu_);
    if (--open_[client] == 0) open_.erase(client);
  });
}

}  // namespace kbench::server
