#include "server/common/sha256.h"

#include <openssl/sha.h>

#include "absl/strings/escaping.h"

namespace kbench::server {

std::string Sha256Hex(std::string_view bytes) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(), digest);
  return absl::BytesToHexString(
      absl::string_view(reinterpret_cast<const char*>(digest), sizeof digest));
}

}  // namespace kbench::server
