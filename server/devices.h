// Opens the devices of the backend the operator chose.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "server/device.h"

namespace kbench::server {

// backend: "cpu" (one CPU device), "cuda" (every CUDA device; fails when the
// build has no CUDA or no device is present) or "auto" (cuda when a device
// is present, else cpu).
absl::StatusOr<std::vector<std::unique_ptr<Device>>> OpenDevices(
    const std::string& backend);

}  // namespace kbench::server
