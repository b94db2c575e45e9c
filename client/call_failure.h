// How a subcommand ends when its call to the server failed: the reason on
// stderr (DescribeRpcFailure), and the exit code.
#pragma once

#include "client/command_line.h"
#include "client/exit_codes.h"
#include "client/interrupt_watcher.h"
#include "client/server_calls.h"

namespace kbench::client {

// The exit code for a call that did not succeed, after saying why on
// stderr: kInterrupted when `watcher` saw Ctrl-C, else ExitCodeForStatus.
ExitCode ReportFailure(const CallResult& result, const GlobalOptions& options,
                       const InterruptWatcher& watcher);

}  // namespace kbench::client
