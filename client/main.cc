// kbench: the command-line client of the kbench service; see cli.h and
// `kbench --help`.
#include "cli.h"
#include "interrupt_watcher.h"

int main(int argc, char** argv) {
  // First, before gRPC or anything else starts a thread: every later thread
  // must inherit SIGINT and SIGTERM blocked, for the watcher to take them.
  kbench::client::InterruptWatcher watcher;
  return kbench::client::RunCli(argc, argv, watcher);
}
