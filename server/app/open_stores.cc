#include "server/app/open_stores.h"

#include <cstdint>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "server/app/bootstrap_admin.h"
#include "server/app/listen_policy.h"
#include "kernels/common/status_macros.h"
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
  absl::StatusOr<std::unique_ptr<store::IdentityStore>> identities =
      store::OpenIdentityStore(flags.store);
  if (!identities.ok()) return Failed(identities.status(), cannot_open);
  stores.identities = *std::move(identities);
  KBENCH_RETURN_IF_ERROR(BootstrapAdmin(*stores.identities, flags.bootstrap_admin,
                                        flags.bootstrap_admin_token_file));
  absl::StatusOr<int64_t> users = stores.identities->CountActiveUsers();
  if (!users.ok()) return Failed(users.status(), store_failed);
  const bool authentication = flags.auth == "on" || (flags.auth == "auto" && *users > 0);
  if (authentication && *users == 0)
    return absl::FailedPreconditionError(
        "--auth on: the store has no active user; give --bootstrap-admin NAME "
        "--bootstrap-admin-token-file PATH for a first start, or add one with "
        "`kbench-server admin add-user NAME --role admin`");
  for (const auto& [flag, address] :
       {std::pair{"--listen", flags.listen}, std::pair{"--http", flags.http}}) {
    if (address == "off") continue;
    KBENCH_RETURN_IF_ERROR(CheckListenAddress(flag, address, authentication, flags.insecure));
  }
  if (authentication) {
    stores.authenticator = std::make_unique<auth::TokenAuthenticator>(*stores.identities);
    Log("auth: on (", *users, " active users): every call needs a token");
  } else {
    Log("auth: off (", flags.auth == "off" ? "--auth off" : "no users in the store",
        "): every caller is the local admin", flags.insecure ? " (--insecure)" : "");
  }
  absl::StatusOr<std::unique_ptr<store::RunStore>> runs = store::OpenStore(flags.store);
  if (!runs.ok()) return Failed(runs.status(), cannot_open);
  stores.runs = *std::move(runs);
  absl::StatusOr<int64_t> interrupted = stores.runs->MarkInFlightInterrupted();
  if (!interrupted.ok()) return Failed(interrupted.status(), store_failed);
  if (*interrupted > 0)
    Log("store: ", *interrupted, " runs left in flight by an earlier server are now interrupted");
  Log("store: ", flags.store);
  return stores;
}

}  // namespace kbench::server
