// The kbench CLI from argv to exit code: parse the command line, call the
// server, show progress on stderr and the results on stdout. Exit codes are
// those of exit_codes.h.
#pragma once

#include "client/interrupt_watcher.h"

namespace kbench::client {

// Runs the command that argv names and returns the process exit code.
// `watcher` must have been made before any thread started (see
// InterruptWatcher); a SIGINT or SIGTERM cancels the call in flight.
int RunCli(int argc, const char* const* argv, InterruptWatcher& watcher);

}  // namespace kbench::client
