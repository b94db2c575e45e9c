// The store's clock: wall time in milliseconds since the Unix epoch, the
// unit of every *_unix_ms field.
#pragma once

#include <chrono>
#include <cstdint>

namespace kbench::server::store {

inline int64_t NowUnixMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace kbench::server::store
