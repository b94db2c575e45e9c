// The server's version (the CMake project's), reported by GetServerInfo and
// --version.
#pragma once

namespace kbench::server {

inline constexpr char kVersion[] = KBENCH_VERSION;

}  // namespace kbench::server
