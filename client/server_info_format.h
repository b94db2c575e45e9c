// The human-readable answer of `kbench info`.
#pragma once

#include <string>

#include "kbench/v1/kbench.pb.h"

namespace kbench::client {

// Lines, each ending in '\n': version and backend; each device (name, SMs,
// L2, memory, measured ceilings, healthy); each op's description, then each
// variant's dtypes, head dims and summary; the limits; the default timing;
// running and queued runs. GPU
// properties a device does not report (zero on the CPU backend) are left out.
std::string FormatServerInfo(const v1::ServerInfo& info);

}  // namespace kbench::client
