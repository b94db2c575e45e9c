// kbench-server: serves the KernelBench API on one host's devices.
//
// Prints "kbench-server listening on HOST:PORT" on stdout once serving (the
// port the system chose when --listen asks for port 0), logs to stderr.
// SIGINT or SIGTERM drains: new runs are refused with UNAVAILABLE, health
// turns NOT_SERVING, running and waiting runs get --shutdown-grace seconds
// to end, then are cancelled. A second signal exits at once.
#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "CLI/CLI.hpp"
#include "grpcpp/ext/proto_server_reflection_plugin.h"
#include "grpcpp/grpcpp.h"
#include "grpcpp/health_check_service_interface.h"
#include "server/devices.h"
#include "server/limit_flags.h"
#include "server/limits.h"
#include "server/local_executor.h"
#include "server/validation.h"
#include "server/log.h"
#include "server/scheduler.h"
#include "server/service.h"
#include "server/version.h"

namespace kbench::server {
namespace {

constexpr char kServiceName[] = "kbench.v1.KernelBench";

struct Options {
  std::string listen = "127.0.0.1:50051";
  std::string backend = "auto";
  double shutdown_grace_s = 30;
  bool enable_fault_injection = false;
};

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
  app.add_option("--backend", options.backend,
                 "auto (cuda when a GPU is present, else cpu), cpu or cuda")
      ->check(CLI::IsMember({"auto", "cpu", "cuda"}))
      ->capture_default_str();
  app.add_option("--shutdown-grace", options.shutdown_grace_s,
                 "Seconds running work may take to end after SIGINT/SIGTERM")
      ->check(CLI::Range(0.0, 3600.0))
      ->capture_default_str();
  app.add_flag("--enable-fault-injection", options.enable_fault_injection,
               "Accept requests that ask a worker to fail (tests only)");
  limit_flags.Register(app);
  CLI11_PARSE(app, argc, argv);

  auto devices = OpenDevices(options.backend);
  if (!devices.ok()) {
    std::fprintf(stderr, "kbench-server: %s\n", std::string(devices.status().message()).c_str());
    return 1;
  }
  const v1::Limits limits = limit_flags.Resolve((*devices)[0]->Info());
  std::vector<std::unique_ptr<Executor>> executors;
  for (auto& device : *devices) {
    const v1::DeviceInfo info = device->Info();
    Log("device ", info.index(), ": ", info.backend(), " ", info.name(),
        ", measured copy bandwidth ", info.copy_bandwidth_gbps(), " GB/s",
        info.matmul_tflops() > 0
            ? absl::StrCat(", matmul ", info.matmul_tflops(), " TFLOP/s")
            : "");
    executors.push_back(std::make_unique<LocalExecutor>(std::move(device)));
  }
  absl::StatusOr<TimingPlan> timing_defaults =
      ValidateTiming(v1::TimingOptions(), limits, DefaultTiming());
  if (!timing_defaults.ok()) {
    std::fprintf(stderr, "kbench-server: the limits leave no valid default timing: %s\n",
                 std::string(timing_defaults.status().message()).c_str());
    return 1;
  }

  grpc::EnableDefaultHealthCheckService(true);
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  std::atomic<grpc::Server*> server_ptr{nullptr};
  Scheduler scheduler(std::move(executors), limits.max_queue(), [&](bool serving) {
    Log("health: ", serving ? "SERVING" : "NOT_SERVING (no device ready)");
    if (grpc::Server* server = server_ptr.load())
      server->GetHealthCheckService()->SetServingStatus(kServiceName, serving);
  });
  ServiceOptions service_options;
  service_options.limits = limits;
  service_options.timing_defaults = *timing_defaults;
  service_options.enable_fault_injection = options.enable_fault_injection;
  KernelBenchService service(scheduler, service_options);

  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort(options.listen, grpc::InsecureServerCredentials(), &port);
  builder.RegisterService(&service);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (server == nullptr || port == 0) {
    std::fprintf(stderr, "kbench-server: cannot listen on %s\n", options.listen.c_str());
    return 1;
  }
  server_ptr = server.get();
  const bool healthy = scheduler.AnyReady();
  server->GetHealthCheckService()->SetServingStatus(kServiceName, healthy);
  server->GetHealthCheckService()->SetServingStatus(healthy);
  const std::string host = options.listen.substr(0, options.listen.rfind(':'));
  std::printf("kbench-server listening on %s:%d\n", host.c_str(), port);
  std::fflush(stdout);
  Log("kbench-server ", kVersion, " serving on ", host, ":", port);

  const int signal = WaitForSignal(signals);
  Log("received ", signal == SIGINT ? "SIGINT" : "SIGTERM", ": draining (",
      options.shutdown_grace_s, " s grace; a second signal exits at once)");
  std::thread second_signal([&] {
    WaitForSignal(signals);
    Log("second signal: exiting now");
    std::_Exit(1);
  });
  second_signal.detach();
  scheduler.Drain();
  server->GetHealthCheckService()->Shutdown();
  server->Shutdown(std::chrono::system_clock::now() +
                   std::chrono::milliseconds(int64_t(options.shutdown_grace_s * 1000)));
  scheduler.Stop();
  Log("stopped");
  return 0;
}

}  // namespace
}  // namespace kbench::server

int main(int argc, char** argv) { return kbench::server::Main(argc, argv); }
