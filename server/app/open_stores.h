// The server's store and who its callers are: opens the identity and run
// stores that --store names (auto creates none: auth_mode.h), decides
// whether callers authenticate (--auth: on, off, or auto = on when the
// store has ever had a user), and refuses a --listen or --http address the
// listen policy forbids (listen_policy.h: loopback, or TLS with
// authentication).
// Runs an earlier server left in flight become interrupted. Logs the auth
// mode and the store.
#pragma once

#include <memory>

#include "absl/status/statusor.h"
#include "server/app/server_flags.h"
#include "server/auth/token_authenticator.h"
#include "server/store/assignment_store.h"
#include "server/store/identity_store.h"
#include "server/store/run_store.h"

namespace kbench::server {

struct OpenedStores {
  std::unique_ptr<store::IdentityStore> identities;
  std::unique_ptr<store::RunStore> runs;
  std::unique_ptr<store::AssignmentStore> assignments;
  // Reads `identities`; null when callers do not authenticate.
  std::unique_ptr<auth::TokenAuthenticator> authenticator;
};

// An error's message is the whole reason, naming the store or the flag.
absl::StatusOr<OpenedStores> OpenStores(const ServerFlags& flags);

}  // namespace kbench::server
