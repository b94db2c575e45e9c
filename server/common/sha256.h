// SHA-256 as 64 lowercase hex digits: how the server names bytes it keeps
// by content (a kernel's source in the store and the compile cache) and
// how it stores secrets (identity/secret.h).
#pragma once

#include <string>
#include <string_view>

namespace kbench::server {

std::string Sha256Hex(std::string_view bytes);

}  // namespace kbench::server
