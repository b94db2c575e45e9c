// kbench-worker: owns one device and runs the runs the front (kbench-server)
// sends it over a private Unix socket (proto/kbench/worker/v1/worker.proto).
// The front starts one per device and supervises it
// (server/front/worker_executor.h); it is not meant to be started by hand.
//
//   kbench-worker --backend cpu|cuda|auto --device N --socket PATH
//                 [--parent-pid PID] [--enable-fault-injection]
//
// It dies with the front: PR_SET_PDEATHSIG(SIGKILL) is set first thing, and
// it exits at once if its parent is already gone (getppid() differs from
// --parent-pid). SIGTERM from the front stops it (exit 0) without waiting
// for a run that may be stuck in a kernel. SIGINT, and SIGTERM from anyone
// else, are ignored: a Ctrl-C at the terminal, `timeout` or systemd signal
// the whole process group or cgroup at once, while the front first lets
// running runs finish, then stops its workers. Exit statuses:
// server/run/exit_codes.h.
#include <sys/prctl.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "CLI/CLI.hpp"
#include "absl/strings/str_cat.h"
#include "grpcpp/grpcpp.h"
#include "proto/ops/backends.h"
#include "server/common/log.h"
#include "server/run/exit_codes.h"
#include "server/worker/devices.h"
#include "server/worker/local_executor.h"
#include "server/worker/worker_service.h"

namespace kbench::server::worker {
namespace {

using server::Log;

struct Options {
  std::string backend = "auto";
  uint32_t device = 0;
  std::string socket;
  int64_t parent_pid = 0;
  bool enable_fault_injection = false;
};

// The exit status the process ends with, set once by whoever decides it
// (the signal thread, or the run thread after a lost device).
class ExitLatch {
 public:
  void Set(int code) {
    std::lock_guard lock(mu_);
    if (!code_) code_ = code;
    cv_.notify_all();
  }
  int Wait() {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return code_.has_value(); });
    return *code_;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::optional<int> code_;
};

int Main(int argc, char** argv) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  std::signal(SIGINT, SIG_IGN);
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  Options options;
  CLI::App app{
      "kbench-worker: runs the runs of one device for kbench-server, which\n"
      "starts it; not meant to be started by hand."};
  app.add_option("--backend", options.backend, "auto, cpu or cuda")
      ->check(CLI::IsMember(proto::ops::BackendFlagChoices()))
      ->capture_default_str();
  app.add_option("--device", options.device, "Index of the device to own")->capture_default_str();
  app.add_option("--socket", options.socket, "Unix socket to serve on")->required();
  app.add_option("--parent-pid", options.parent_pid,
                 "Exit at once unless this is still the parent's pid");
  app.add_flag("--enable-fault-injection", options.enable_fault_injection,
               "Honour requests that ask the worker to fail (tests only)");
  CLI11_PARSE(app, argc, argv);

  server::SetLogPrefix(absl::StrCat("worker ", options.device, ": "));
  if (options.parent_pid != 0 && getppid() != options.parent_pid) {
    Log("the server (pid ", options.parent_pid, ") is already gone; exiting");
    return kExitStartFailed;
  }
  absl::StatusOr<std::string> backend = ResolveBackend(options.backend);
  absl::StatusOr<uint32_t> count = backend.ok() ? DeviceCount(*backend) : backend.status();
  absl::StatusOr<std::unique_ptr<Device>> device =
      count.ok() ? OpenDevice(*backend, options.device) : count.status();
  if (!device.ok()) {
    Log("cannot open device ", options.device, ": ", device.status().message());
    return kExitStartFailed;
  }
  if (absl::Status captured = CaptureKernelPrintf(*backend); !captured.ok())
    Log("kernels' printf output will not be captured: ", captured.message());
  LocalExecutor executor(*std::move(device));
  const kbench::v1::DeviceInfo info = executor.Info();
  Log(info.backend(), " ", info.name(), ", measured copy bandwidth ", info.copy_bandwidth_gbps(),
      " GB/s",
      info.matmul_tflops() > 0 ? absl::StrCat(", matmul ", info.matmul_tflops(), " TFLOP/s") : "");

  ExitLatch exit;
  WorkerService service(executor, *count, options.enable_fault_injection,
                        [&] { exit.Set(kExitDeviceLost); });
  grpc::ServerBuilder builder;
  builder.AddListeningPort("unix:" + options.socket, grpc::InsecureServerCredentials());
  builder.RegisterService(&service);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (server == nullptr) {
    Log("cannot serve on unix:", options.socket);
    return kExitStartFailed;
  }
  Log("serving on unix:", options.socket, " (pid ", getpid(), ")");

  std::thread([&] {
    while (true) {
      siginfo_t info;
      if (sigwaitinfo(&signals, &info) != SIGTERM) continue;
      if (info.si_pid == getppid()) break;
      Log("SIGTERM from pid ", info.si_pid, " ignored: the server stops its workers");
    }
    Log("SIGTERM from the server: stopping");
    exit.Set(kExitStopped);
  }).detach();
  const int code = exit.Wait();
  server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(1));
  // A run may be stuck in a kernel: exit without joining the run thread.
  std::_Exit(code);
}

}  // namespace
}  // namespace kbench::server::worker

int main(int argc, char** argv) { return kbench::server::worker::Main(argc, argv); }
