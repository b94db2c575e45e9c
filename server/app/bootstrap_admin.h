// --bootstrap-admin NAME --bootstrap-admin-token-file PATH: the first start
// of a server with --auth on. When the store has never had a user, adds the
// admin NAME with the token in PATH (chosen by the operator: a Kubernetes
// Secret, a systemd credential, a file), so the server starts and the
// operator can sign in with that token at once; otherwise leaves the store
// as it is. Without it, --auth on with an empty store cannot start, and
// nothing could add the first user inside a crash-looping pod.
#pragma once

#include <string>

#include "absl/status/status.h"
#include "server/store/identity_store.h"

namespace kbench::server {

// The most bytes read from the token file.
inline constexpr size_t kMaxBootstrapTokenFileBytes = 4096;

// Both or neither of name and token_file must be given (INVALID_ARGUMENT
// naming the missing flag). Reads the token (trailing white space dropped;
// FAILED_PRECONDITION naming the path when it cannot be read) and adds the
// admin when the store has never had a user. Logs what it did.
absl::Status BootstrapAdmin(store::IdentityStore& identities, const std::string& name,
                            const std::string& token_file);

}  // namespace kbench::server
