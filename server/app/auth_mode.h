// Whether kbench-server authenticates its callers (--auth). `auto` is off
// only for a store that has never had a user: one whose users were all
// revoked keeps authentication on, so revoking everyone never opens the
// server. And `auto` never creates a store: an explicit --store naming a
// SQLite file that does not exist (a mistyped path) would otherwise start
// an empty store without authentication.
#pragma once

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "server/store/identity_store.h"

namespace kbench::server {

// OK unless `mode` is "auto", `store_given` (--store was on the command
// line) and `spec` names a SQLite file that does not exist; then
// FAILED_PRECONDITION saying how to create it on purpose. Call before the
// store is opened (opening creates it).
absl::Status CheckStoreToCreate(const std::string& mode, const std::string& spec, bool store_given);

// Whether callers authenticate under `mode` (auto, on, off) with this
// store: on, off, or for auto whether the store ever had a user.
// FAILED_PRECONDITION for "on" with a store that never had one (no one
// could call); the store's error when it fails.
absl::StatusOr<bool> ResolveAuthentication(const std::string& mode,
                                           store::IdentityStore& identities);

}  // namespace kbench::server
