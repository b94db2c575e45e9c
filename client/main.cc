// kbench: the command-line client of the kbench service; see cli.h and
// `kbench --help`.
#include <grpc/support/log.h>

#include <cstdlib>

#include "client/cli.h"
#include "client/interrupt_watcher.h"

int main(int argc, char** argv) {
  // First, before gRPC or anything else starts a thread: every later thread
  // must inherit SIGINT and SIGTERM blocked, for the watcher to take them.
  kbench::client::InterruptWatcher watcher;
  // gRPC's own log lines (a failed TLS handshake's, say) are not for the
  // user: every failure is described in words (exit_codes.h).
  // GRPC_VERBOSITY brings them back for debugging.
  if (std::getenv("GRPC_VERBOSITY") == nullptr) {
    gpr_set_log_function([](gpr_log_func_args*) {});
  }
  return kbench::client::RunCli(argc, argv, watcher);
}
