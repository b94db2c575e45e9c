// How a subcommand ends when its call to the server failed: the reason on
// stderr (DescribeRpcFailure), and the exit code.
#ifndef KBENCH_CLIENT_CALL_FAILURE_H_
#define KBENCH_CLIENT_CALL_FAILURE_H_

#include "command_line.h"
#include "exit_codes.h"
#include "interrupt_watcher.h"
#include "server_calls.h"

namespace kbench::client {

// The exit code for a call that did not succeed, after saying why on
// stderr: kInterrupted when `watcher` saw Ctrl-C, else ExitCodeForStatus.
ExitCode ReportFailure(const CallResult& result, const GlobalOptions& options,
                       const InterruptWatcher& watcher);

}  // namespace kbench::client

#endif  // KBENCH_CLIENT_CALL_FAILURE_H_
