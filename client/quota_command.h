// Carries out `kbench quota show` and `kbench quota set` against the
// server's Quotas service: the call, the report on stdout (a table, or
// --json the QuotaReport), the error on stderr, and the exit code.
#pragma once

#include <string>

#include "client/command_line.h"
#include "client/exit_codes.h"
#include "client/interrupt_watcher.h"
#include "client/quota_command_line.h"
#include "client/server_calls.h"
#include "kbench/v1/quota.pb.h"

namespace kbench::client {

// Runs `command` and returns the exit code: kBadArguments when the server
// refused the values (INVALID_ARGUMENT), else as ExitCodeForStatus.
ExitCode RunQuotaCommand(const GlobalOptions& options, const CallOptions& call,
                         InterruptWatcher& watcher, const QuotaCommand& command);

// The report as a table: one line per quota with its limit ("none" for 0)
// and, for the caller's own, what they use of it.
std::string FormatQuotaReport(const v1::QuotaReport& report, bool own);

}  // namespace kbench::client
