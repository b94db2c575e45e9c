// Carries out `kbench runs`, `kbench show` and `kbench export` against the
// server's run history: the call, the output on stdout, the error on
// stderr, and the exit code.
#pragma once

#include "client/command_line.h"
#include "client/exit_codes.h"
#include "client/history_command_line.h"
#include "client/interrupt_watcher.h"
#include "client/server_calls.h"

namespace kbench::client {

// Runs `command` and returns the exit code (ExitCodeForHistoryStatus of a
// failed call, after DescribeHistoryFailure's line on stderr). Export
// writes each run as it arrives, so a failure part way leaves the runs
// before it on stdout.
ExitCode RunHistoryCommand(const GlobalOptions& options, const CallOptions& call,
                           InterruptWatcher& watcher, const HistoryCommand& command);

}  // namespace kbench::client
