#include "server/app/open_stores.h"

#include <cstdint>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "kernels/common/status_macros.h"
#include "server/app/auth_mode.h"
#include "server/app/bootstrap_admin.h"
#include "server/app/listen_policy.h"
#include "server/common/log.h"

namespace kbench::server {
namespace {

// `status` with its message prefixed by what failed.
absl::Status Failed(const absl::Status& status, const std::string& what) {
  return absl::Status(status.code(), absl::StrCat(what, status.message()));
}

}  // namespace

absl::StatusOr<OpenedStores> OpenStores(const ServerFlags& flags) {
  const std::string cannot_open = absl::StrCat("cannot open the store ", flags.store, ": ");
  const std::string store_failed = absl::StrCat("the store ", flags.store, ": ");
  OpenedStores stores;
  // --bootstrap-admin asks for the store to be made.
  if (flags.bootstrap_admin.empty())
    KBENCH_RETURN_IF_ERROR(CheckStoreToCreate(flags.auth, flags.store, flags.store_given));
  absl::StatusOr<std::unique_ptr<store::IdentityStore>> identities =
      store::OpenIdentityStore(flags.store);
  if (!identities.ok()) return Failed(identities.status(), cannot_open);
  stores.identities = *std::move(identities);
  KBENCH_RETURN_IF_ERROR(
      BootstrapAdmin(*stores.identities, flags.bootstrap_admin, flags.bootstrap_admin_token_file));
  absl::StatusOr<bool> resolved = ResolveAuthentication(flags.auth, *stores.identities);
  if (absl::IsFailedPrecondition(resolved.status())) return resolved.status();
  if (!resolved.ok()) return Failed(resolved.status(), store_failed);
  const bool authentication = *resolved;
  absl::StatusOr<int64_t> users = stores.identities->CountActiveUsers();
  if (!users.ok()) return Failed(users.status(), store_failed);
  const ListenPolicy policy{.authentication = authentication,
                            .insecure = flags.insecure,
                            .tls = !flags.tls_cert.empty(),
                            .allow_plaintext_tokens = flags.allow_plaintext_tokens};
  for (const auto& [flag, address] :
       {std::pair{"--listen", flags.listen}, std::pair{"--http", flags.http}}) {
    if (address == "off") continue;
    KBENCH_RETURN_IF_ERROR(CheckListenAddress(flag, address, policy));
  }
  if (authentication) {
    stores.authenticator = std::make_unique<auth::TokenAuthenticator>(*stores.identities);
    Log("auth: on (", *users, " active users",
        *users == 0 ? ": add one with `kbench-server admin add-user`" : "",
        "): every call needs a token");
  } else {
    Log("auth: off (", flags.auth == "off" ? "--auth off" : "the store never had a user",
        "): every caller is the local admin", flags.insecure ? " (--insecure)" : "");
  }
  absl::StatusOr<std::unique_ptr<store::RunStore>> runs =
      store::OpenStore(flags.store, flags.host_id);
  if (!runs.ok()) return Failed(runs.status(), cannot_open);
  stores.runs = *std::move(runs);
  absl::StatusOr<std::unique_ptr<store::AssignmentStore>> assignments =
      store::OpenAssignmentStore(flags.store);
  if (!assignments.ok()) return Failed(assignments.status(), cannot_open);
  stores.assignments = *std::move(assignments);
  absl::StatusOr<int64_t> interrupted = stores.runs->MarkInFlightInterrupted();
  if (!interrupted.ok()) return Failed(interrupted.status(), store_failed);
  if (*interrupted > 0)
    Log("store: ", *interrupted, " runs left in flight by an earlier server of host ",
        flags.host_id, " are now interrupted");
  Log("store: ", flags.store, " (host ", flags.host_id, ")");
  return stores;
}

}  // namespace kbench::server
