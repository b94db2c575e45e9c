#include "server/app/bootstrap_admin.h"

#include <fstream>
#include <iterator>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "kernels/common/status_macros.h"
#include "server/common/log.h"

namespace kbench::server {

absl::Status BootstrapAdmin(store::IdentityStore& identities, const std::string& name,
                            const std::string& token_file) {
  if (name.empty() && token_file.empty()) return absl::OkStatus();
  if (name.empty()) {
    return absl::InvalidArgumentError(
        "--bootstrap-admin-token-file needs --bootstrap-admin NAME (the admin's name)");
  }
  if (token_file.empty()) {
    return absl::InvalidArgumentError(
        "--bootstrap-admin needs --bootstrap-admin-token-file PATH (the admin's token)");
  }
  std::ifstream in(token_file, std::ios::binary);
  if (!in) {
    return absl::FailedPreconditionError(
        absl::StrCat("--bootstrap-admin-token-file ", token_file, ": cannot be read"));
  }
  std::string token(kMaxBootstrapTokenFileBytes + 1, '\0');
  in.read(token.data(), std::streamsize(token.size()));
  token.resize(size_t(in.gcount()));
  if (token.size() > kMaxBootstrapTokenFileBytes) {
    return absl::InvalidArgumentError(absl::StrCat("--bootstrap-admin-token-file ", token_file,
                                                   ": over ", kMaxBootstrapTokenFileBytes,
                                                   " bytes; it holds one token"));
  }
  token = std::string(absl::StripTrailingAsciiWhitespace(token));
  const absl::StatusOr<bool> added = identities.BootstrapAdmin(name, token);
  if (!added.ok()) {
    return absl::Status(added.status().code(),
                        absl::StrCat("--bootstrap-admin: ", added.status().message()));
  }
  if (*added) {
    Log("bootstrap: added the admin \"", name, "\" with the token in ", token_file);
  } else {
    Log("bootstrap: the store has users; --bootstrap-admin left it as it was");
  }
  return absl::OkStatus();
}

}  // namespace kbench::server
