// Runs a parsed sweep (sweep_command_line.h): one Run RPC per point, in
// order, each written to the results as it ends; progress and the closing
// summary on stderr.
#pragma once

#include "client/command_line.h"
#include "client/exit_codes.h"
#include "client/interrupt_watcher.h"
#include "client/server_calls.h"

namespace kbench::client {

// Runs every point of `sweep` that its --resume file does not hold. A point
// the server refuses, that errs or fails verification does not stop the
// sweep; one that cannot reach the server does (every later one would fail
// alike). An interrupt cancels the point in flight, which is not written,
// and stops. First the server's ServerInfo is fetched and every point
// checked against it (sweep_preflight.h). Returns the exit code of
// SweepExitCode; kBadArguments when a point cannot run on the server or the
// output cannot be set up (--out holds points, a --resume file of another
// format or columns, a CSV resume without --label), before anything runs;
// kServerError when the server became unreachable or the output could not
// be written; kInterrupted after an interrupt.
ExitCode RunSweep(const GlobalOptions& options, const CallOptions& call, InterruptWatcher& watcher,
                  const SweepCommand& sweep);

}  // namespace kbench::client
