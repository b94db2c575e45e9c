#include "server/front/start_workers.h"

#include <algorithm>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "kernels/common/status_macros.h"

namespace kbench::server {
namespace {

absl::StatusOr<std::unique_ptr<WorkerExecutor>> Launch(const WorkersConfig& config,
                                                       const SocketDirectory& sockets,
                                                       const std::string& backend, uint32_t index) {
  WorkerOptions options;
  options.worker_binary = config.worker_binary;
  options.backend = backend;
  options.device_index = index;
  KBENCH_ASSIGN_OR_RETURN(options.socket_path, sockets.SocketFor(index));
  options.enable_fault_injection = config.enable_fault_injection;
  return std::make_unique<WorkerExecutor>(std::move(options));
}

}  // namespace

absl::StatusOr<std::vector<uint32_t>> ParseDeviceList(const std::string& devices) {
  std::vector<uint32_t> indices;
  for (const absl::string_view item : absl::StrSplit(devices, ',')) {
    uint32_t index = 0;
    if (!absl::SimpleAtoi(item, &index))
      return absl::InvalidArgumentError(absl::StrCat(
          "--devices must be 'all' or device indices separated by commas, such as 0,1; "
          "got '",
          devices, "'"));
    if (std::find(indices.begin(), indices.end(), index) != indices.end())
      return absl::InvalidArgumentError(absl::StrCat("--devices names device ", index, " twice"));
    indices.push_back(index);
  }
  return indices;
}

absl::StatusOr<StartedWorkers> StartWorkers(const WorkersConfig& config,
                                            const SocketDirectory& sockets) {
  std::vector<uint32_t> indices = {0};
  if (config.devices != "all") {
    KBENCH_ASSIGN_OR_RETURN(indices, ParseDeviceList(config.devices));
  }
  StartedWorkers started;
  KBENCH_ASSIGN_OR_RETURN(std::unique_ptr<WorkerExecutor> first,
                          Launch(config, sockets, config.backend, indices[0]));
  KBENCH_ASSIGN_OR_RETURN(const kbench::worker::v1::DescribeResponse described,
                          first->WaitUntilStarted());
  started.first_device = described.device();
  started.executors.push_back(std::move(first));
  if (config.devices == "all") {
    indices.clear();
    for (uint32_t i = 0; i < described.device_count(); ++i) indices.push_back(i);
  }
  for (size_t i = 1; i < indices.size(); ++i) {
    KBENCH_ASSIGN_OR_RETURN(std::unique_ptr<WorkerExecutor> executor,
                            Launch(config, sockets, started.first_device.backend(), indices[i]));
    started.executors.push_back(std::move(executor));
  }
  for (size_t i = 1; i < started.executors.size(); ++i)
    KBENCH_RETURN_IF_ERROR(started.executors[i]->WaitUntilStarted().status());
  return started;
}

}  // namespace kbench::server
