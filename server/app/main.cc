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
// --auth auto (the default) authenticates callers when the store has any
// active user; without authentication the server listens on loopback only
// unless --insecure (listen_policy.h). The mode is logged at start-up.
// SIGINT or SIGTERM drains: new runs are refused with UNAVAILABLE, health
// turns NOT_SERVING, running and waiting runs get --shutdown-grace seconds
// to end, then are cancelled; then the workers get SIGTERM (SIGKILL if they
// do not stop) and are reaped. A second signal exits at once; the workers
// die with the front (PR_SET_PDEATHSIG).
#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "CLI/CLI.hpp"
#include "grpcpp/ext/proto_server_reflection_plugin.h"
#include "grpcpp/grpcpp.h"
#include "grpcpp/health_check_service_interface.h"
#include "prometheus/registry.h"
#include "server/app/admin_command.h"
#include "server/auth/auth_service.h"
#include "server/auth/token_authenticator.h"
#include "server/front/start_workers.h"
#include "server/front/worker_executor.h"
#include "server/front/worker_paths.h"
#include "server/front/history_service.h"
#include "server/http/dashboard_server.h"
#include "server/app/limit_flags.h"
#include "server/run/limits.h"
#include "server/app/listen_policy.h"
#include "server/app/quota_flags.h"
#include "server/front/quota_gate.h"
#include "server/front/quota_service.h"
#include "server/live/live_runs.h"
#include "server/common/log.h"
#include "server/metrics/run_metrics.h"
#include "server/front/scheduler.h"
#include "server/front/service.h"
#include "kernels/common/status_macros.h"
#include "server/store/identity_store.h"
#include "server/store/run_store.h"
#include "server/store/store_recorder.h"
#include "server/run/validation.h"
#include "server/common/version.h"

namespace kbench::server {
namespace {

constexpr char kServiceName[] = "kbench.v1.KernelBench";
constexpr char kDefaultHttp[] = "127.0.0.1:8080";

// Where the SQLite store lives unless --store says otherwise:
// $KBENCH_STATE_DIR, else $XDG_STATE_HOME/kbench, else
// $HOME/.local/state/kbench, else ./kbench-state.
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

struct Options {
  std::string listen = "127.0.0.1:50051";
  std::string health_listen = "off";
  std::string store;
  std::string http = kDefaultHttp;
  std::string auth = "auto";
  std::string tls_cert;
  std::string tls_key;
  bool insecure = false;
  WorkersConfig workers;
  std::string worker_binary;
  double shutdown_grace_s = 30;
};

// Server credentials of a PEM certificate chain and its key; NOT_FOUND
// naming a file that cannot be read.
absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> TlsCredentials(
    const std::string& cert_path, const std::string& key_path) {
  auto read = [](const std::string& flag, const std::string& path) -> absl::StatusOr<std::string> {
    std::ifstream file(path);
    std::stringstream text;
    if (!file || !(text << file.rdbuf())) {
      return absl::NotFoundError(absl::StrCat(flag, ": cannot read ", path));
    }
    return text.str();
  };
  grpc::SslServerCredentialsOptions ssl;
  grpc::SslServerCredentialsOptions::PemKeyCertPair pair;
  KBENCH_ASSIGN_OR_RETURN(pair.cert_chain, read("--tls-cert", cert_path));
  KBENCH_ASSIGN_OR_RETURN(pair.private_key, read("--tls-key", key_path));
  ssl.pem_key_cert_pairs.push_back(std::move(pair));
  return grpc::SslServerCredentials(ssl);
}

int Fail(const std::string& message) {
  std::fprintf(stderr, "kbench-server: %s\n", message.c_str());
  return 1;
}

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

int Main(int argc, char** argv) {
  const sigset_t signals = BlockShutdownSignals();

  Options options;
  LimitFlags limit_flags;
  QuotaFlags quota_flags;
  CLI::App app{
      "kbench-server: runs vector add and attention kernels (naive and fused) on\n"
      "this host's devices, verifies every output against a double-precision\n"
      "reference, and streams the timings to kbench clients over gRPC.\n\n"
      "Prints 'kbench-server listening on HOST:PORT' on stdout once serving.\n"
      "SIGINT/SIGTERM drain the server: new runs are refused (UNAVAILABLE),\n"
      "running runs get --shutdown-grace seconds, then are cancelled.\n"
      "`kbench info` shows the limits a running server applies."};
  app.set_version_flag("--version", std::string("kbench-server ") + kVersion);
  app.add_option("--listen", options.listen,
                 "Address to serve on, HOST:PORT (port 0: any free port)")
      ->capture_default_str();
  app.add_option("--health-listen", options.health_listen,
                 "A second address, HOST:PORT, that serves only the gRPC health service "
                 "(grpc.health.v1), in plain text even with --tls-cert: for probes that "
                 "cannot speak TLS, such as Kubernetes' grpc probes. It tells SERVING or "
                 "NOT_SERVING and nothing else. 'off': none")
      ->capture_default_str();
  app.add_option("--backend", options.workers.backend,
                 "auto (cuda when a GPU is present, else cpu), cpu or cuda; "
                 "the workers open their devices with it")
      ->check(CLI::IsMember({"auto", "cpu", "cuda"}))
      ->capture_default_str();
  app.add_option("--devices", options.workers.devices,
                 "The devices to serve, one worker each: all, or indices such as 0,1 "
                 "(the CPU backend serves the host's CPU as any index)")
      ->capture_default_str();
  app.add_option("--worker-binary", options.worker_binary,
                 "The kbench-worker to start [default: the one beside kbench-server]");
  app.add_option("--shutdown-grace", options.shutdown_grace_s,
                 "Seconds running work may take to end after SIGINT/SIGTERM")
      ->check(CLI::Range(0.0, 3600.0))
      ->capture_default_str();
  app.add_flag("--enable-fault-injection", options.workers.enable_fault_injection,
               "Accept requests that ask a worker to fail (tests only)");
  app.add_option("--store", options.store,
                 "The results store: a SQLite file path, or a postgresql:// URL "
                 "[default: $KBENCH_STATE_DIR, $XDG_STATE_HOME/kbench or "
                 "~/.local/state/kbench, file runs.sqlite]");
  app.add_option("--http", options.http,
                 "Address of the dashboard, its JSON API (/api/) and the Prometheus "
                 "metrics (/metrics), HOST:PORT; 'off' serves none. When the default "
                 "cannot be bound the server goes on without it and says so")
      ->capture_default_str();
  app.add_option("--auth", options.auth,
                 "Authenticate callers by their token: on, off, or auto (on when the "
                 "store has any active user; add users with `kbench-server admin`)")
      ->check(CLI::IsMember({"auto", "on", "off"}))
      ->capture_default_str();
  app.add_flag("--insecure", options.insecure,
               "Allow a non-loopback --listen or --http without authentication "
               "(anyone who reaches the server may run and read every run)");
  CLI::Option* tls_cert = app.add_option(
      "--tls-cert", options.tls_cert,
      "PEM certificate chain: serve gRPC and the dashboard with TLS (clients give "
      "--tls, and --ca for a private CA)");
  CLI::Option* tls_key = app.add_option("--tls-key", options.tls_key,
                                        "PEM private key of --tls-cert");
  tls_cert->needs(tls_key);
  tls_key->needs(tls_cert);
  limit_flags.Register(app);
  quota_flags.Register(app);
  AdminCommandLine admin(app);
  CLI11_PARSE(app, argc, argv);

  if (options.store.empty()) options.store = DefaultStorePath();
  if (admin.parsed()) return admin.Run(options.store, std::cout, std::cerr);

  absl::StatusOr<std::unique_ptr<store::IdentityStore>> identities =
      store::OpenIdentityStore(options.store);
  if (!identities.ok())
    return Fail(absl::StrCat("cannot open the store ", options.store, ": ",
                             identities.status().message()));
  absl::StatusOr<int64_t> users = (*identities)->CountActiveUsers();
  if (!users.ok())
    return Fail(absl::StrCat("the store ", options.store, ": ", users.status().message()));
  const bool authentication = options.auth == "on" || (options.auth == "auto" && *users > 0);
  if (authentication && *users == 0)
    return Fail("--auth on: the store has no active user; add one first with "
                "`kbench-server admin add-user NAME --role admin`");
  for (const auto& [flag, address] : {std::pair{"--listen", options.listen},
                                      std::pair{"--http", options.http}}) {
    if (address == "off") continue;
    if (absl::Status allowed = CheckListenAddress(flag, address, authentication,
                                                  options.insecure);
        !allowed.ok())
      return Fail(std::string(allowed.message()));
  }
  std::unique_ptr<auth::TokenAuthenticator> authenticator;
  if (authentication) {
    authenticator = std::make_unique<auth::TokenAuthenticator>(**identities);
    Log("auth: on (", *users, " active users): every call needs a token");
  } else {
    Log("auth: off (", options.auth == "off" ? "--auth off" : "no users in the store",
        "): every caller is the local admin", options.insecure ? " (--insecure)" : "");
  }
  absl::StatusOr<std::unique_ptr<store::RunStore>> run_store = store::OpenStore(options.store);
  if (!run_store.ok())
    return Fail(absl::StrCat("cannot open the store ", options.store, ": ",
                             run_store.status().message()));
  if (absl::StatusOr<int64_t> interrupted = (*run_store)->MarkInFlightInterrupted();
      !interrupted.ok()) {
    return Fail(absl::StrCat("the store ", options.store, ": ", interrupted.status().message()));
  } else if (*interrupted > 0) {
    Log("store: ", *interrupted, " runs left in flight by an earlier server are now interrupted");
  }
  Log("store: ", options.store);

  absl::StatusOr<std::string> worker_binary = FindWorkerBinary(options.worker_binary);
  if (!worker_binary.ok()) return Fail(std::string(worker_binary.status().message()));
  options.workers.worker_binary = *worker_binary;
  absl::StatusOr<std::unique_ptr<SocketDirectory>> sockets = SocketDirectory::Create();
  if (!sockets.ok()) return Fail(std::string(sockets.status().message()));
  absl::StatusOr<StartedWorkers> workers = StartWorkers(options.workers, **sockets);
  if (!workers.ok())
    return Fail(absl::StrCat("cannot start: ", workers.status().message()));
  const v1::Limits limits = limit_flags.Resolve(workers->first_device);
  absl::StatusOr<TimingPlan> timing_defaults =
      ValidateTiming(v1::TimingOptions(), limits, DefaultTiming());
  if (!timing_defaults.ok())
    return Fail(absl::StrCat("the limits leave no valid default timing: ",
                             timing_defaults.status().message()));
  std::vector<WorkerExecutor*> supervisors;
  std::vector<std::unique_ptr<Executor>> executors;
  for (auto& executor : workers->executors) {
    executor->SetLimits(limits);
    supervisors.push_back(executor.get());
    executors.push_back(std::move(executor));
  }

  grpc::EnableDefaultHealthCheckService(true);
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  // The gRPC port's server and the --health-listen one: both tell the same
  // health.
  std::atomic<grpc::Server*> server_ptr{nullptr};
  std::atomic<grpc::Server*> health_ptr{nullptr};
  auto set_health = [&](bool serving) {
    for (grpc::Server* s : {server_ptr.load(), health_ptr.load()}) {
      if (s == nullptr) continue;
      s->GetHealthCheckService()->SetServingStatus(kServiceName, serving);
      s->GetHealthCheckService()->SetServingStatus(serving);
    }
  };
  auto scheduler = std::make_unique<Scheduler>(
      std::move(executors), limits.max_queue(), [&](bool serving) {
        Log("health: ", serving ? "SERVING" : "NOT_SERVING (no device ready)");
        set_health(serving);
      });
  ServiceOptions service_options;
  service_options.limits = limits;
  service_options.timing_defaults = *timing_defaults;
  service_options.enable_fault_injection = options.workers.enable_fault_injection;
  service_options.authenticator = authenticator.get();
  absl::StatusOr<std::map<std::string, v1::QuotaOverrides>> cohort_quotas =
      (*run_store)->CohortQuotas();
  if (!cohort_quotas.ok())
    return Fail(absl::StrCat("the store ", options.store, ": ", cohort_quotas.status().message()));
  QuotaGate quotas(
      quota_flags.Resolve(),
      [&](const std::string& user, int64_t since_unix_ms) {
        return (*run_store)->DeviceTimeOf(user, since_unix_ms);
      },
      *std::move(cohort_quotas));
  service_options.quotas = &quotas;
  store::StoreRecorder recorder(**run_store);
  prometheus::Registry registry;
  metrics::RunMetrics metrics(registry);
  LiveRuns live_runs;
  KernelBenchService service(*scheduler, service_options, {&recorder, &metrics, &live_runs});
  HistoryService history(**run_store, authenticator.get(), identities->get());
  auth::AuthService auth_service(**identities, authenticator.get());
  QuotaService quota_service(quotas, **run_store, service_options.authenticator);

  std::unique_ptr<http::DashboardServer> dashboard;
  if (options.http != "off") {
    LiveProvider live = [&] {
      LiveState state;
      state.info = service.Info();
      live_runs.Fill(state);
      return state;
    };
    absl::StatusOr<std::unique_ptr<http::DashboardServer>> started = http::DashboardServer::Start(
        **run_store, live, registry,
        {.listen = options.http,
         .authenticator = authenticator.get(),
         .tls_cert = options.tls_cert,
         .tls_key = options.tls_key});
    if (started.ok()) {
      dashboard = *std::move(started);
      Log("dashboard and metrics on ", options.tls_cert.empty() ? "http" : "https", "://",
          options.http.substr(0, options.http.rfind(':')), ":", dashboard->port(), "/");
    } else if (options.http == kDefaultHttp) {
      Log("no dashboard: ", started.status().message(), " (give --http HOST:PORT)");
    } else {
      return Fail(absl::StrCat("--http ", options.http, ": ", started.status().message()));
    }
  }

  std::shared_ptr<grpc::ServerCredentials> credentials = grpc::InsecureServerCredentials();
  if (!options.tls_cert.empty()) {
    absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> tls =
        TlsCredentials(options.tls_cert, options.tls_key);
    if (!tls.ok()) return Fail(std::string(tls.status().message()));
    credentials = *std::move(tls);
  }
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort(options.listen, credentials, &port);
  builder.RegisterService(&service);
  builder.RegisterService(&history);
  builder.RegisterService(&auth_service);
  builder.RegisterService(&quota_service);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (server == nullptr || port == 0) return Fail("cannot listen on " + options.listen);
  server_ptr = server.get();
  std::unique_ptr<grpc::Server> health_server;
  if (options.health_listen != "off") {
    grpc::ServerBuilder health_builder;
    int health_port = 0;
    health_builder.AddListeningPort(options.health_listen, grpc::InsecureServerCredentials(),
                                    &health_port);
    health_server = health_builder.BuildAndStart();
    if (health_server == nullptr || health_port == 0)
      return Fail("--health-listen: cannot listen on " + options.health_listen);
    health_ptr = health_server.get();
    const std::string health_host =
        options.health_listen.substr(0, options.health_listen.rfind(':'));
    std::printf("kbench-server health on %s:%d\n", health_host.c_str(), health_port);
  }
  set_health(scheduler->AnyReady());
  const std::string host = options.listen.substr(0, options.listen.rfind(':'));
  std::printf("kbench-server listening on %s:%d\n", host.c_str(), port);
  std::fflush(stdout);
  Log("kbench-server ", kVersion, " serving on ", host, ":", port,
      options.tls_cert.empty() ? " (plain text)" : " (TLS)");

  const int signal = WaitForSignal(signals);
  Log("received ", signal == SIGINT ? "SIGINT" : "SIGTERM", ": draining (",
      options.shutdown_grace_s, " s grace; a second signal exits at once)");
  std::thread second_signal([&] {
    WaitForSignal(signals);
    Log("second signal: exiting now");
    std::_Exit(1);
  });
  second_signal.detach();
  // The port stays open through the grace period: new runs get UNAVAILABLE
  // "server is draining: ..." rather than a refused connection.
  service.Drain();
  scheduler->Drain();
  server->GetHealthCheckService()->Shutdown();
  if (health_server) health_server->GetHealthCheckService()->Shutdown();
  const auto grace_end = std::chrono::steady_clock::now() +
                         std::chrono::milliseconds(int64_t(options.shutdown_grace_s * 1000));
  while ((scheduler->running() > 0 || scheduler->queued() > 0) &&
         std::chrono::steady_clock::now() < grace_end)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  service.CancelRuns(absl::CancelledError(absl::StrCat(
      "the server shut down before the run ended (--shutdown-grace ", options.shutdown_grace_s,
      " s)")));
  // What remains are the cancelled runs' last writes.
  server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
  if (health_server) health_server->Shutdown(std::chrono::system_clock::now());
  scheduler->Stop();
  for (WorkerExecutor* supervisor : supervisors) supervisor->Stop();
  if (dashboard) dashboard->Stop();
  scheduler.reset();
  Log("stopped");
  return 0;
}

}  // namespace
}  // namespace kbench::server

int main(int argc, char** argv) { return kbench::server::Main(argc, argv); }
