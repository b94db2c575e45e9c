// Carries out `kbench login`, `kbench invite` and `kbench whoami` against
// the server's Auth service: the call, the output on stdout (the invite
// code; whoami's identity, as text or --json), messages on stderr, and the
// exit code (0 done; 2 refused: a bad name, code or cohort; 3 the server
// unreachable or failing, or the token could not be saved; 4 not signed in
// or not allowed, e.g. a learner inviting).
#pragma once

#include "client/auth_command_line.h"
#include "client/command_line.h"
#include "client/exit_codes.h"
#include "client/interrupt_watcher.h"
#include "client/server_calls.h"

namespace kbench::client {

ExitCode RunAuthCommand(const GlobalOptions& options, const CallOptions& call,
                        InterruptWatcher& watcher, const AuthCommand& command);

}  // namespace kbench::client
