// kbench-server's command line for serving: the options (ServerFlags) and
// the flags that set them (RegisterServerFlags), help texts included. The
// `admin` subcommand is admin_command.h's.
#pragma once

#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "server/app/limit_flags.h"
#include "server/app/quota_flags.h"
#include "server/front/host_lease.h"
#include "server/front/start_workers.h"

namespace kbench::server {

// --http's default: when it cannot be bound the server goes on without a
// dashboard (any other address given must be bound).
inline constexpr char kDefaultHttp[] = "127.0.0.1:8080";

struct ServerFlags {
  std::string listen = "127.0.0.1:50051";
  std::string health_listen = "off";
  // Empty until parsed: then DefaultStorePath() unless --store was given.
  std::string store;
  // Whether --store was given (auth_mode.h: auto creates no store it names).
  bool store_given = false;
  // --host-id: this host in a shared store (store::OpenStore's `host`);
  // empty until parsed: then DefaultHostId() unless given.
  std::string host_id;
  // --host-lease-seconds: HostLease's lease (server/front/host_lease.h).
  double host_lease_s = double(kDefaultHostLease.count());
  // --shared-queue: runs wait in the store's queue, which every server of
  // the store runs from (server/front/shared_queue.h, queue_claimer.h).
  bool shared_queue = false;
  std::string http = kDefaultHttp;
  std::string auth = "auto";  // auto, on or off
  std::string tls_cert;       // empty: plain text
  std::string tls_key;
  bool insecure = false;
  // --http-host: names clients reach the dashboard by (its Host check).
  std::vector<std::string> http_hosts;
  // --enable-reflection: gRPC server reflection on --listen (never on
  // --health-listen).
  bool enable_reflection = false;
  // --bootstrap-admin: the first admin of a store that never had a user.
  std::string bootstrap_admin;
  std::string bootstrap_admin_token_file;
  bool allow_plaintext_tokens = false;
  // Its worker_binary stays empty: --worker-binary is `worker_binary`.
  WorkersConfig workers;
  std::string worker_binary;  // empty: the one beside kbench-server
  double shutdown_grace_s = 30;
  LimitFlags limits;
  QuotaFlags quotas;
};

// Sets app's description and --version and adds every serving flag, each
// bound to a field of `flags` (which must outlive the parse).
void RegisterServerFlags(CLI::App& app, ServerFlags& flags);

// Where the SQLite store lives unless --store says otherwise:
// $KBENCH_STATE_DIR, else $XDG_STATE_HOME/kbench, else
// $HOME/.local/state/kbench, else ./kbench-state; file runs.sqlite.
std::string DefaultStorePath();

// --host-id's default: the machine's host name (gethostname), or "localhost"
// when it has none.
std::string DefaultHostId();

}  // namespace kbench::server
