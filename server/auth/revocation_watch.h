// Tells a running server of revocations. `kbench-server admin revoke` is
// another process writing to the store, so the server polls it: every
// `period` (kRevocationPoll) the watch reads the revoked users and calls
// `on_revoked` with each one it had not seen revoked, on its own thread.
// The server then forgets their cached tokens and ends their queued and
// running runs (KernelBenchService::CancelRunsOf). Users revoked before
// the watch started are not reported. A failing store is logged and
// retried the next period.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <set>
#include <string>
#include <thread>

#include "server/store/identity_store.h"

namespace kbench::server::auth {

inline constexpr std::chrono::milliseconds kRevocationPoll{250};

class RevocationWatch {
 public:
  using OnRevoked = std::function<void(const std::string& user)>;

  // Reads the users revoked so far, then starts polling. `identities` must
  // outlive the watch, and so must what `on_revoked` touches.
  RevocationWatch(store::IdentityStore& identities, OnRevoked on_revoked,
                  std::chrono::milliseconds period = kRevocationPoll);
  // Stops polling; an on_revoked call in progress ends first.
  ~RevocationWatch();
  RevocationWatch(const RevocationWatch&) = delete;
  RevocationWatch& operator=(const RevocationWatch&) = delete;

 private:
  void Poll();
  void Loop();

  store::IdentityStore& identities_;
  const OnRevoked on_revoked_;
  const std::chrono::milliseconds period_;
  std::set<std::string> seen_;  // the polling thread's only
  std::mutex mu_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread thread_;  // last: started once the rest is set
};

}  // namespace kbench::server::auth
