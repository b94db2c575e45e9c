#include "server/auth/revocation_watch.h"

#include <utility>
#include <vector>

#include "server/common/log.h"

namespace kbench::server::auth {

RevocationWatch::RevocationWatch(store::IdentityStore& identities, OnRevoked on_revoked,
                                 std::chrono::milliseconds period)
    : identities_(identities), on_revoked_(std::move(on_revoked)), period_(period) {
  if (absl::StatusOr<std::vector<std::string>> revoked = identities_.RevokedUsers(); revoked.ok()) {
    seen_.insert(revoked->begin(), revoked->end());
  }
  thread_ = std::thread([this] { Loop(); });
}

RevocationWatch::~RevocationWatch() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void RevocationWatch::Poll() {
  absl::StatusOr<std::vector<std::string>> revoked = identities_.RevokedUsers();
  if (!revoked.ok()) {
    Log("auth: cannot read revocations from the store (retrying): ", revoked.status().message());
    return;
  }
  for (const std::string& user : *revoked) {
    if (!seen_.insert(user).second) continue;
    Log("auth: ", user, " was revoked: their tokens stop working and their runs end");
    on_revoked_(user);
  }
}

void RevocationWatch::Loop() {
  std::unique_lock lock(mu_);
  while (!wake_.wait_for(lock, period_, [this] { return stopping_; })) {
    lock.unlock();
    Poll();
    lock.lock();
  }
}

}  // namespace kbench::server::auth
