// The client's token: $KBENCH_TOKEN, else the credentials file that
// `kbench login` writes, $XDG_CONFIG_HOME/kbench/credentials (else
// ~/.config/kbench/credentials): the token on one line, the file mode 0600
// in a directory of mode 0700.
#pragma once

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace kbench::client {

// The credentials file's path; empty when neither XDG_CONFIG_HOME nor HOME
// is set.
std::string CredentialsPath();

// The token to send: $KBENCH_TOKEN when set and not empty, else the
// credentials file's, else "" (no file). An unreadable file is an error
// naming it.
absl::StatusOr<std::string> LoadToken();

// Writes `token` to the credentials file (mode 0600, its directory created
// with mode 0700), replacing what was there. Returns the path.
absl::StatusOr<std::string> SaveToken(const std::string& token);

}  // namespace kbench::client
