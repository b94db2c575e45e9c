// kbench-server: serves the KernelBench API on one host's devices. It is the
// front: gRPC service, admission and scheduler. Each device is owned by a
// kbench-worker process that the front starts and supervises
// (server/front/worker_executor.h); the front itself never opens a device.
//
// Prints "kbench-server listening on HOST:PORT" on stdout once serving (the
// port the system chose when --listen asks for port 0), which is once every
// worker is ready; logs to stderr, and so do the workers. Exits 1 with the
// reason when a worker cannot start (no GPU for --backend cuda, no such
// device).
// Every run is recorded in the results store (--store: SQLite by default,
// PostgreSQL by URL); at start-up runs an earlier server left in flight
// become interrupted. The run history (RunHistory), the dashboard, its
// JSON API and the Prometheus metrics (--http) read it.
// Identities live in the same store (`kbench-server admin`, admin_command.h).
// --auth auto (the default) authenticates callers when the store has ever
// had a user (auth_mode.h); without authentication the server listens on
// loopback only unless --insecure, with it on loopback or with TLS unless
// --allow-plaintext-tokens (listen_policy.h). The mode is logged at
// start-up. A user revoked while the server runs (`kbench-server admin
// revoke`) is seen within kRevocationPoll: their tokens stop working and
// their queued and running runs end (revocation_watch.h).
// SIGINT or SIGTERM drains: new runs are refused with UNAVAILABLE, health
// turns NOT_SERVING, running and waiting runs get --shutdown-grace seconds
// to end, then are cancelled; then the workers get SIGTERM (SIGKILL if they
// do not stop) and are reaped. A second signal exits at once; the workers
// die with the front (PR_SET_PDEATHSIG).
#include <malloc.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <string>
#include <thread>

#include "CLI/CLI.hpp"
#include "server/app/admin_command.h"
#include "server/app/probe_command.h"
#include "server/app/server_assembly.h"
#include "server/app/server_flags.h"
#include "server/common/log.h"

namespace kbench::server {
namespace {

// The malloc arenas the server's threads share (CapMallocArenas).
constexpr int kMallocArenas = 2;

// Blocks SIGINT and SIGTERM in every thread (call before any thread starts)
// so that WaitForSignal receives them.
sigset_t BlockShutdownSignals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  return set;
}

int WaitForSignal(const sigset_t& set) {
  int signal = 0;
  sigwait(&set, &signal);
  return signal;
}

// glibc gives each thread that allocates an arena of its own (up to 8 per
// core) and keeps in it what the thread freed: with gRPC's threads each
// once holding a request of megabytes, the server's RSS climbed in steps and
// kept them (docs/SECURITY.md, "Memory", has the measurements). Call before
// any thread starts. An operator's MALLOC_ARENA_MAX still wins.
void CapMallocArenas() {
  if (std::getenv("MALLOC_ARENA_MAX") == nullptr) mallopt(M_ARENA_MAX, kMallocArenas);
}

int Main(int argc, char** argv) {
  CapMallocArenas();
  const sigset_t signals = BlockShutdownSignals();
  ServerFlags flags;
  CLI::App app;
  RegisterServerFlags(app, flags);
  AdminCommandLine admin(app);
  ProbeCommandLine probe(app);
  CLI11_PARSE(app, argc, argv);
  if (probe.parsed()) return probe.Run(std::cout, std::cerr);
  flags.store_given = !flags.store.empty();
  if (flags.store.empty()) flags.store = DefaultStorePath();
  if (flags.host_id.empty()) flags.host_id = DefaultHostId();
  if (admin.parsed()) return admin.Run(flags.store, std::cout, std::cerr);

  absl::StatusOr<std::unique_ptr<AssembledServer>> server = AssembledServer::Start(flags);
  if (!server.ok()) {
    std::fprintf(stderr, "kbench-server: %s\n", std::string(server.status().message()).c_str());
    return 1;
  }
  const int signal = WaitForSignal(signals);
  // Refused before it says so: a client that reads "draining" in the log
  // and then calls is refused.
  (*server)->RefuseNewRuns();
  Log("received ", signal == SIGINT ? "SIGINT" : "SIGTERM", ": draining (", flags.shutdown_grace_s,
      " s grace; a second signal exits at once)");
  std::thread second_signal([&] {
    WaitForSignal(signals);
    Log("second signal: exiting now");
    std::_Exit(1);
  });
  second_signal.detach();
  (*server)->Drain();
  server->reset();
  Log("stopped");
  return 0;
}

}  // namespace
}  // namespace kbench::server

int main(int argc, char** argv) { return kbench::server::Main(argc, argv); }
