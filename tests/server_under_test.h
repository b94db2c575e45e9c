// kbench-server as a process, driven through gRPC stubs, for the process
// tests: the server on a free port with its workers' sockets under a fresh
// $TMPDIR of the test's own (so the test can find every process it left),
// runs read to their end, the health service watched, and /proc scanned for
// the server's workers. Header-only; not thread-safe unless said.
#pragma once

#include <dirent.h>
#include <signal.h>
#include <stdlib.h>

#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "grpc/health/v1/health.grpc.pb.h"
#include "grpcpp/grpcpp.h"
#include "kbench/v1/kbench.grpc.pb.h"
#include "tests/process_helper.h"

namespace kbench::testing {

using namespace std::chrono_literals;

class ServerUnderTest {
 public:
  // Starts kbench-server --listen 127.0.0.1:0 plus `args`; address() is ""
  // if it did not start serving within a minute. Its stderr is captured, or
  // (`capture_stderr` false, for a server that outlives a test and whose log
  // nobody drains) left to the test's own.
  explicit ServerUnderTest(std::vector<std::string> args, bool capture_stderr = true) {
    char pattern[] = "/tmp/kbench-test-XXXXXX";
    tmpdir_ = mkdtemp(pattern);
    setenv("TMPDIR", tmpdir_.c_str(), 1);
    // The default results store too (unless the test gives --store), so
    // test servers never share one.
    setenv("KBENCH_STATE_DIR", tmpdir_.c_str(), 1);
    std::vector<std::string> argv = {KBENCH_SERVER_BIN, "--listen", "127.0.0.1:0", "--http", "off"};
    argv.insert(argv.end(), args.begin(), args.end());
    process_ = std::make_unique<ChildProcess>(argv, capture_stderr);
    constexpr char kListening[] = "kbench-server listening on 127.0.0.1:";
    if (!process_->WaitForOutput(kListening, 60s) || !process_->WaitForOutput("\n", 5s)) return;
    const std::string& out = process_->out();
    const size_t port_at = out.find(kListening) + sizeof(kListening) - 1;
    address_ = "127.0.0.1:" + out.substr(port_at, out.find('\n', port_at) - port_at);
    channel_ = grpc::CreateChannel(address_, grpc::InsecureChannelCredentials());
  }

  ~ServerUnderTest() {
    process_.reset();
    std::error_code ignored;
    std::filesystem::remove_all(tmpdir_, ignored);
  }

  // Asks the server to stop (SIGTERM) and waits up to `timeout` for it to
  // exit; its exit code, or nullopt (the destructor then kills it).
  std::optional<int> Stop(std::chrono::milliseconds timeout) {
    process_->Signal(SIGTERM);
    return process_->Wait(timeout);
  }

  const std::string& address() const { return address_; }
  const std::string& tmpdir() const { return tmpdir_; }
  ChildProcess& process() { return *process_; }
  std::shared_ptr<grpc::Channel> channel() { return channel_; }
  std::unique_ptr<v1::KernelBench::Stub> Stub() { return v1::KernelBench::NewStub(channel_); }

  // `token`: sent as the caller's bearer token unless empty (a server with
  // authentication answers an empty info otherwise).
  v1::ServerInfo Info(const std::string& token = "") {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + 10s);
    if (!token.empty()) context.AddMetadata("authorization", "Bearer " + token);
    v1::ServerInfo info;
    Stub()->GetServerInfo(&context, v1::GetServerInfoRequest(), &info);
    return info;
  }

 private:
  std::string tmpdir_;
  std::unique_ptr<ChildProcess> process_;
  std::string address_;
  std::shared_ptr<grpc::Channel> channel_;
};

// A vector add whose sampling lasts about `ms` milliseconds: neither the
// RSE target nor max_samples can end it sooner.
inline v1::RunRequest VectorAdd(uint64_t n, double ms) {
  v1::RunRequest request;
  request.mutable_vector_add()->set_n(n);
  request.mutable_timing()->set_min_time_ms(ms);
  request.mutable_timing()->set_time_budget_ms(ms);
  request.mutable_timing()->set_target_rse(1e-9);
  request.mutable_timing()->set_max_samples(100000);
  return request;
}

// One streaming run, read from the calling thread.
class RunStream {
 public:
  // `token`: sent as the caller's bearer token unless empty.
  RunStream(v1::KernelBench::Stub& stub, const v1::RunRequest& request,
            const std::string& token = "")
      : reader_(stub.Run(&WithToken(context_, token), request)) {}

  // Reads until an event for which `until` is true; false if the stream
  // ended first.
  bool ReadUntil(const std::function<bool(const v1::RunEvent&)>& until) {
    v1::RunEvent event;
    while (reader_->Read(&event)) {
      events_.push_back(event);
      if (until(event)) return true;
    }
    ended_ = true;
    return false;
  }
  // Cancels the call, as a client that goes away does.
  void Cancel() { context_.TryCancel(); }
  // Reads the rest and returns the status.
  grpc::Status Finish() {
    if (!ended_) ReadUntil([](const v1::RunEvent&) { return false; });
    return reader_->Finish();
  }
  const std::vector<v1::RunEvent>& events() const { return events_; }
  std::optional<v1::Started> started() const {
    for (const auto& e : events_)
      if (e.has_started()) return e.started();
    return std::nullopt;
  }
  std::optional<v1::Summary> summary() const {
    for (const auto& e : events_)
      if (e.has_summary()) return e.summary();
    return std::nullopt;
  }

 private:
  static grpc::ClientContext& WithToken(grpc::ClientContext& context, const std::string& token) {
    if (!token.empty()) context.AddMetadata("authorization", "Bearer " + token);
    return context;
  }

  grpc::ClientContext context_;
  std::unique_ptr<grpc::ClientReader<v1::RunEvent>> reader_;
  std::vector<v1::RunEvent> events_;
  bool ended_ = false;
};

inline bool IsSamples(const v1::RunEvent& event) { return event.has_samples(); }

// Records every status the health service reports for `service` (the
// readiness signal kbench.v1.KernelBench unless told; "" is the server as a
// whole), on a thread of its own. Thread-safe.
class HealthWatcher {
 public:
  using Status = grpc::health::v1::HealthCheckResponse::ServingStatus;

  explicit HealthWatcher(std::shared_ptr<grpc::Channel> channel,
                         std::string service = "kbench.v1.KernelBench")
      : stub_(grpc::health::v1::Health::NewStub(channel)),
        service_(std::move(service)),
        thread_([this] { Watch(); }) {}
  ~HealthWatcher() {
    context_.TryCancel();
    thread_.join();
  }

  // How many statuses were seen so far.
  size_t seen() const {
    std::lock_guard lock(mu_);
    return statuses_.size();
  }
  // Every status seen so far, in order.
  std::vector<Status> statuses() const {
    std::lock_guard lock(mu_);
    return statuses_;
  }
  // Waits until the statuses seen after the first `from` contain `first`
  // and later `then`; false at the timeout.
  bool WaitForSequence(size_t from, Status first, Status then, std::chrono::seconds timeout) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, timeout, [&] {
      size_t i = from;
      while (i < statuses_.size() && statuses_[i] != first) ++i;
      while (i < statuses_.size() && statuses_[i] != then) ++i;
      return i < statuses_.size();
    });
  }

 private:
  void Watch() {
    grpc::health::v1::HealthCheckRequest request;
    request.set_service(service_);
    auto reader = stub_->Watch(&context_, request);
    grpc::health::v1::HealthCheckResponse response;
    while (reader->Read(&response)) {
      std::lock_guard lock(mu_);
      statuses_.push_back(response.status());
      cv_.notify_all();
    }
    reader->Finish();
  }

  std::unique_ptr<grpc::health::v1::Health::Stub> stub_;
  const std::string service_;
  grpc::ClientContext context_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::vector<Status> statuses_;
  std::thread thread_;
};

// The live (not zombie) processes whose command line contains `text`.
inline std::vector<pid_t> LiveProcessesMentioning(const std::string& text) {
  std::vector<pid_t> found;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream cmdline(entry.path() / "cmdline");
    const std::string args((std::istreambuf_iterator<char>(cmdline)),
                           std::istreambuf_iterator<char>());
    if (args.find(text) == std::string::npos) continue;
    std::ifstream stat(entry.path() / "stat");
    std::string line;
    std::getline(stat, line);
    const size_t state_at = line.rfind(')') + 2;
    if (state_at < line.size() && (line[state_at] == 'Z' || line[state_at] == 'X')) continue;
    found.push_back(pid_t(std::stoi(name)));
  }
  return found;
}

// Polls until no live process mentions `text`; true if none is left
// within `timeout`.
inline bool NoProcessLeftMentioning(const std::string& text, std::chrono::seconds timeout) {
  const auto give_up = std::chrono::steady_clock::now() + timeout;
  while (!LiveProcessesMentioning(text).empty()) {
    if (std::chrono::steady_clock::now() > give_up) return false;
    std::this_thread::sleep_for(50ms);
  }
  return true;
}

}  // namespace kbench::testing
