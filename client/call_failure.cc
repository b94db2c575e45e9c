#include "client/call_failure.h"

#include <iostream>

namespace kbench::client {

ExitCode ReportFailure(const CallResult& result, const GlobalOptions& options,
                       const InterruptWatcher& watcher) {
  if (watcher.interrupted()) {
    std::cerr << "kbench: interrupted; run cancelled" << std::endl;
    return ExitCode::kInterrupted;
  }
  std::cerr << DescribeRpcFailure(result.status, options.server, options.timeout_s, result.stage)
            << std::endl;
  return ExitCodeForStatus(result.status.error_code());
}

}  // namespace kbench::client
