#include "server/identity/secret.h"

#include <openssl/rand.h>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "server/common/sha256.h"

namespace kbench::server::identity {

absl::StatusOr<std::string> NewSecret(std::string_view prefix) {
  unsigned char bytes[32];
  if (RAND_bytes(bytes, sizeof bytes) != 1) {
    return absl::InternalError("the system's random generator failed (RAND_bytes)");
  }
  return absl::StrCat(
      std::string(prefix),
      absl::WebSafeBase64Escape(std::string(reinterpret_cast<const char*>(bytes), sizeof bytes)));
}

bool LooksLikeSecret(std::string_view secret, std::string_view prefix) {
  // 32 bytes are 43 base64 characters without padding.
  constexpr size_t kEncodedLength = 43;
  if (secret.size() != prefix.size() + kEncodedLength || secret.substr(0, prefix.size()) != prefix)
    return false;
  for (char c : secret.substr(prefix.size())) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '-' || c == '_';
    if (!ok) return false;
  }
  return true;
}

std::string SecretHash(std::string_view secret) { return Sha256Hex(secret); }

}  // namespace kbench::server::identity
