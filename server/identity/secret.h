// Bearer tokens and invite codes: made from the system's CSPRNG (OpenSSL's
// RAND_bytes) and stored only as their SHA-256, so a copy of the store
// gives no one a usable token.
#pragma once

#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace kbench::server::identity {

inline constexpr std::string_view kTokenPrefix = "kbt_";
inline constexpr std::string_view kInvitePrefix = "kbi_";

// A new secret: `prefix` ("kbt_" for tokens, "kbi_" for invites) and 32
// random bytes, web-safe base64. INTERNAL when the CSPRNG fails.
absl::StatusOr<std::string> NewSecret(std::string_view prefix);

// Whether `secret` has the form NewSecret(prefix) gives it: the prefix and
// 43 web-safe base64 characters. Lets a caller turn away a malformed token
// or code without asking the store.
bool LooksLikeSecret(std::string_view secret, std::string_view prefix);

// The SHA-256 of `secret`, 64 lowercase hex digits: what the store keeps.
std::string SecretHash(std::string_view secret);

}  // namespace kbench::server::identity
