#include "server/app/server_flags.h"

#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <string>

#include "proto/ops/backends.h"
#include "server/common/version.h"

namespace kbench::server {

void RegisterServerFlags(CLI::App& app, ServerFlags& flags) {
  app.description(
      "kbench-server: runs vector add and attention kernels (naive and fused) on\n"
      "this host's devices, verifies every output against a double-precision\n"
      "reference, and streams the timings to kbench clients over gRPC.\n\n"
      "Prints 'kbench-server listening on HOST:PORT' on stdout once serving.\n"
      "SIGINT/SIGTERM drain the server: new runs are refused (UNAVAILABLE),\n"
      "running runs get --shutdown-grace seconds, then are cancelled.\n"
      "`kbench info` shows the limits a running server applies.");
  app.set_version_flag("--version", std::string("kbench-server ") + kVersion);
  app.add_option("--listen", flags.listen, "Address to serve on, HOST:PORT (port 0: any free port)")
      ->capture_default_str();
  app.add_option("--health-listen", flags.health_listen,
                 "A second address, HOST:PORT, that serves only the gRPC health service "
                 "(grpc.health.v1), in plain text even with --tls-cert: for probes that "
                 "cannot speak TLS, such as Kubernetes' grpc probes. It tells SERVING or "
                 "NOT_SERVING and nothing else. 'off': none")
      ->capture_default_str();
  app.add_option("--backend", flags.workers.backend,
                 "auto (cuda when a GPU is present, else cpu), cpu or cuda; "
                 "the workers open their devices with it")
      ->check(CLI::IsMember(proto::ops::BackendFlagChoices()))
      ->capture_default_str();
  app.add_option("--devices", flags.workers.devices,
                 "The devices to serve, one worker each: all, or indices such as 0,1 "
                 "(the CPU backend serves the host's CPU as any index)")
      ->capture_default_str();
  app.add_option("--worker-binary", flags.worker_binary,
                 "The kbench-worker to start [default: the one beside kbench-server]");
  app.add_option("--shutdown-grace", flags.shutdown_grace_s,
                 "Seconds running work may take to end after SIGINT/SIGTERM")
      ->check(CLI::Range(0.0, 3600.0))
      ->capture_default_str();
  app.add_flag("--enable-fault-injection", flags.workers.enable_fault_injection,
               "Accept requests that ask a worker to fail (tests only)");
  app.add_option("--store", flags.store,
                 "The results store: a SQLite file path, or a postgresql:// URL "
                 "[default: $KBENCH_STATE_DIR, $XDG_STATE_HOME/kbench or "
                 "~/.local/state/kbench, file runs.sqlite]");
  app.add_option("--host-id", flags.host_id,
                 "This host's id in a store that several servers share (PostgreSQL): runs "
                 "this server accepts are its own, and at start-up it marks interrupted "
                 "only its own runs left in flight, never other servers'. Give each server "
                 "an id of its own that stays the same across restarts (on Kubernetes the "
                 "node's name). 1 to 128 letters, digits, '.', '_' or '-' [default: the "
                 "host name]")
      ->check([](const std::string& id) -> std::string {
        if (id.empty() || id.size() > 128) return "--host-id: 1 to 128 characters";
        for (char c : id)
          if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-')
            return "--host-id: only letters, digits, '.', '_' and '-'";
        return "";
      });
  app.add_option("--host-lease-seconds", flags.host_lease_s,
                 "This host's lease in a shared store, renewed every quarter of it: "
                 "when a host has not renewed its lease for this long, the other servers "
                 "mark its runs left in flight interrupted (it died and did not come back)")
      ->check(CLI::Range(5.0, 3600.0))
      ->capture_default_str();
  app.add_flag("--shared-queue", flags.shared_queue,
               "Run from one queue with every server of the same --store (PostgreSQL, "
               "each server with its own --host-id): any server admits a run, the first "
               "idle device of any server runs it in the cluster's fair order (instructors "
               "first, then least device time in the last hour, taking turns), and the "
               "admitting server streams its events to the client");
  app.add_option("--http", flags.http,
                 "Address of the dashboard, its JSON API (/api/) and the Prometheus "
                 "metrics (/metrics), HOST:PORT; 'off' serves none. When the default "
                 "cannot be bound the server goes on without it and says so")
      ->capture_default_str();
  app.add_option("--http-host", flags.http_hosts,
                 "A name clients reach the dashboard by (repeat for each), e.g. an "
                 "Ingress's host. Requests whose Host header is neither an IP address, "
                 "nor localhost, nor --http's host, nor one of these are refused (403), "
                 "so that a web page cannot reach the dashboard by rebinding its own name "
                 "to this address");
  app.add_flag("--enable-reflection", flags.enable_reflection,
               "Serve gRPC server reflection on --listen (it lists every RPC and message "
               "to anyone who connects; never on --health-listen)");
  app.add_option("--auth", flags.auth,
                 "Authenticate callers by their token: on, off, or auto (on when the "
                 "store has ever had a user, revoked ones included; add users with "
                 "`kbench-server admin`). auto does not create a --store that does not "
                 "exist")
      ->check(CLI::IsMember({"auto", "on", "off"}))
      ->capture_default_str();
  app.add_flag("--insecure", flags.insecure,
               "Allow a non-loopback --listen or --http without authentication "
               "(anyone who reaches the server may run and read every run)");
  app.add_flag("--allow-plaintext-tokens", flags.allow_plaintext_tokens,
               "Allow a non-loopback --listen or --http with authentication but without "
               "TLS (bearer tokens and invite codes then cross the network in plain text: "
               "only for a network that is trusted or encrypted by other means)");
  CLI::Option* tls_cert =
      app.add_option("--tls-cert", flags.tls_cert,
                     "PEM certificate chain: serve gRPC and the dashboard with TLS (clients give "
                     "--tls, and --ca for a private CA)");
  CLI::Option* tls_key =
      app.add_option("--tls-key", flags.tls_key, "PEM private key of --tls-cert");
  tls_cert->needs(tls_key);
  tls_key->needs(tls_cert);
  app.add_option("--bootstrap-admin", flags.bootstrap_admin,
                 "On a store that has never had a user: add this admin, with the token in "
                 "--bootstrap-admin-token-file, so that a first start with --auth on works "
                 "(Kubernetes, containers, systemd). Does nothing once the store has users");
  app.add_option("--bootstrap-admin-token-file", flags.bootstrap_admin_token_file,
                 "The file holding --bootstrap-admin's token (at least 32 printable "
                 "characters, e.g. `openssl rand -hex 32`): a Secret or a credential");
  flags.limits.Register(app);
  flags.quotas.Register(app);
}

std::string DefaultStorePath() {
  auto env = [](const char* name) -> std::string {
    const char* value = std::getenv(name);
    return value != nullptr && *value != '\0' ? value : "";
  };
  std::string dir = env("KBENCH_STATE_DIR");
  if (dir.empty() && !env("XDG_STATE_HOME").empty()) dir = env("XDG_STATE_HOME") + "/kbench";
  if (dir.empty() && !env("HOME").empty()) dir = env("HOME") + "/.local/state/kbench";
  if (dir.empty()) dir = "kbench-state";
  return dir + "/runs.sqlite";
}

std::string DefaultHostId() {
  char name[256] = {};
  if (gethostname(name, sizeof(name) - 1) != 0 || name[0] == '\0') return "localhost";
  return name;
}

}  // namespace kbench::server
