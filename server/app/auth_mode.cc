#include "server/app/auth_mode.h"

#include <filesystem>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "kernels/common/status_macros.h"

namespace kbench::server {

absl::Status CheckStoreToCreate(const std::string& mode, const std::string& spec,
                                bool store_given) {
  if (mode != "auto" || !store_given || absl::StartsWith(spec, "postgresql://") ||
      absl::StartsWith(spec, "postgres://")) {
    return absl::OkStatus();
  }
  std::error_code error;
  if (std::filesystem::exists(spec, error) || error) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat(
      "--store ", spec,
      ": no store there, and --auth auto does not create one (a mistyped "
      "path would start an empty store that every caller uses without authentication); "
      "create it with `kbench-server admin add-user NAME --role admin --store ",
      spec,
      "` (or start with --bootstrap-admin) to serve it with authentication, or give "
      "--auth off to start it without"));
}

absl::StatusOr<bool> ResolveAuthentication(const std::string& mode,
                                           store::IdentityStore& identities) {
  if (mode == "off") return false;
  KBENCH_ASSIGN_OR_RETURN(const bool had_users, identities.HadUsers());
  if (mode == "auto") return had_users;
  if (!had_users) {
    return absl::FailedPreconditionError(
        "--auth on: the store has no user; give --bootstrap-admin NAME "
        "--bootstrap-admin-token-file PATH for a first start, or add one with "
        "`kbench-server admin add-user NAME --role admin`");
  }
  return true;
}

}  // namespace kbench::server
