// Starting the front's workers, one per device: the first one named (device
// 0 for --devices all) starts alone, because with --backend auto it picks
// the backend, and it reports how many devices that backend sees; then the
// others start together, with that backend. Fails, naming the device, when
// any worker cannot start: the operator asked for those devices.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "kbench/v1/kbench.pb.h"
#include "server/front/worker_executor.h"
#include "server/front/worker_paths.h"

namespace kbench::server {

struct WorkersConfig {
  std::string worker_binary;
  std::string backend = "auto";  // auto, cpu or cuda
  // "all", or device indices separated by commas ("0,1").
  std::string devices = "all";
  bool enable_fault_injection = false;
};

struct StartedWorkers {
  // Ready, in the order of the devices.
  std::vector<std::unique_ptr<WorkerExecutor>> executors;
  // The first worker's device: its backend is every worker's, and the
  // limits' defaults follow from it.
  v1::DeviceInfo first_device;
};

// The indices of a --devices list; INVALID_ARGUMENT naming what is wrong.
absl::StatusOr<std::vector<uint32_t>> ParseDeviceList(const std::string& devices);

// Starts the workers, their sockets in `sockets`, and waits until each is
// ready.
absl::StatusOr<StartedWorkers> StartWorkers(const WorkersConfig& config,
                                            const SocketDirectory& sockets);

}  // namespace kbench::server
