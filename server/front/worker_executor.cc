#include "server/front/worker_executor.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "server/common/log.h"
#include "server/run/exit_codes.h"
#include "server/run/validation.h"

namespace kbench::server {
namespace {

// How often the supervisor looks at a run in flight (stall, and a
// cancellation it was not told of).
constexpr std::chrono::milliseconds kWatchInterval{100};
// How long Worker.Cancel may take; the worker answers it from a gRPC
// thread, whatever its run thread is doing.
constexpr std::chrono::seconds kCancelTimeout{2};
// How long one Describe waits for a starting worker before the supervisor
// checks whether it is still alive.
constexpr std::chrono::milliseconds kDescribeAttempt{500};
// How long a run whose stream broke waits for its worker's exit.
constexpr std::chrono::seconds kExitWait{5};

// What a worker's wait status means, in words (worker/exit_codes.h).
std::string DescribeExit(int status) {
  if (WIFEXITED(status) && WEXITSTATUS(status) == kExitDeviceLost)
    return "exited after a sticky device error";
  if (WIFEXITED(status) && WEXITSTATUS(status) == kExitStartFailed)
    return "exited with status 1 (it could not start; its log says why)";
  return DescribeWaitStatus(status);
}

}  // namespace

WorkerExecutor::WorkerExecutor(WorkerOptions options)
    : options_(std::move(options)), supervisor_([this] { Supervise(); }) {}

WorkerExecutor::~WorkerExecutor() { Stop(); }

absl::StatusOr<kbench::worker::v1::DescribeResponse> WorkerExecutor::WaitUntilStarted() {
  std::unique_lock lock(mu_);
  cv_.wait(lock, [&] { return first_start_.has_value(); });
  return *first_start_;
}

void WorkerExecutor::SetLimits(const v1::Limits& limits) {
  std::lock_guard lock(mu_);
  limits_ = limits;
}

void WorkerExecutor::Stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (supervisor_.joinable()) supervisor_.join();
}

v1::DeviceInfo WorkerExecutor::Info() const {
  std::lock_guard lock(mu_);
  v1::DeviceInfo info = described_.device();
  if (!described_.has_device()) {
    info.set_backend(options_.backend);
    info.set_index(options_.device_index);
  }
  info.set_healthy(ready_);
  info.set_worker_pid(ready_ ? described_.pid() : 0);
  info.set_worker_restarts(restarts_);
  return info;
}

bool WorkerExecutor::Ready() const {
  std::lock_guard lock(mu_);
  return ready_;
}

bool WorkerExecutor::Failed() const {
  std::lock_guard lock(mu_);
  return failed_;
}

void WorkerExecutor::SetStateListener(std::function<void()> changed) {
  std::lock_guard lock(mu_);
  changed_ = std::move(changed);
}

void WorkerExecutor::Cancel() {
  {
    std::lock_guard lock(mu_);
    if (!active_) return;
    active_->cancel_requested = true;
  }
  cv_.notify_all();
}

std::string WorkerExecutor::Name() const {
  return absl::StrCat("worker for device ", options_.device_index);
}

absl::StatusOr<v1::CompileFacts> WorkerExecutor::Compile(const v1::CompileKernelRequest& request) {
  std::shared_ptr<kbench::worker::v1::Worker::Stub> stub;
  {
    std::lock_guard lock(mu_);
    if (!ready_) return absl::UnavailableError(absl::StrCat(Name(), " is not ready; retry"));
    stub = stub_;
  }
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + kCompileTimeout);
  v1::CompileFacts facts;
  const grpc::Status status = stub->Compile(&context, request, &facts);
  if (!status.ok())
    return absl::Status(absl::StatusCode(status.error_code()), status.error_message());
  return facts;
}

absl::Status WorkerExecutor::Execute(const AdmittedRun& run, const std::string& run_id,
                                     RunSink& sink) {
  kbench::worker::v1::ExecuteRequest request;
  *request.mutable_request() = Resolved(run);
  request.set_run_id(run_id);
  grpc::ClientContext context;
  std::shared_ptr<kbench::worker::v1::Worker::Stub> stub;
  uint64_t generation = 0;
  {
    std::lock_guard lock(mu_);
    if (!ready_) return absl::UnavailableError(absl::StrCat(Name(), " is restarting; retry"));
    *request.mutable_limits() = limits_;
    stub = stub_;
    generation = generation_;
    active_ = ActiveRun{run_id, &sink, &context, Clock::now()};
  }
  cv_.notify_all();

  std::unique_ptr<grpc::ClientReader<kbench::worker::v1::WorkerEvent>> reader =
      stub->Execute(&context, request);
  kbench::worker::v1::WorkerEvent event;
  std::optional<kbench::worker::v1::RunEnd> end;
  while (reader->Read(&event)) {
    {
      std::lock_guard lock(mu_);
      active_->last_heard = Clock::now();
    }
    if (event.has_event()) sink.Emit(std::move(*event.mutable_event()));
    if (event.has_end()) end = event.end();
  }
  const grpc::Status status = reader->Finish();
  {
    std::lock_guard lock(mu_);
    active_.reset();
  }
  if (end && (end->code() == 0 || !end->device_lost()))
    return absl::Status(absl::StatusCode(end->code()), end->message());
  if (!end) {
    if (sink.Cancelled()) return absl::CancelledError("run cancelled by the client");
    Log(Name(), ": run ", run_id, "'s stream broke off (", status.error_message(), ")");
  }
  return WorkerWentAway(generation, run_id, end, !run.problem.request.kernels().empty());
}

absl::Status WorkerExecutor::WorkerWentAway(uint64_t generation, const std::string& run_id,
                                            const std::optional<kbench::worker::v1::RunEnd>& end,
                                            bool learner_kernels) {
  std::unique_lock lock(mu_);
  const auto ended = [&] { return last_ended_ && last_ended_->generation >= generation; };
  if (!cv_.wait_for(lock, kExitWait, ended) && generation_ == generation && process_ &&
      kill_reason_.empty()) {
    // Its stream broke but the worker lives on: it cannot be trusted.
    kill_reason_ = "broke off a run's stream";
    process_->Signal(SIGKILL);
    cv_.wait_for(lock, kExitWait, ended);
  }
  if (!ended())
    return absl::InternalError(
        absl::StrCat(Name(), " broke off run ", run_id, " and did not exit"));
  const Ended& e = *last_ended_;
  const std::string what = end ? absl::StrCat("lost its device (", end->message(), ")") : e.what;
  std::string then;
  if (e.restarting) {
    then = e.killed ? "killed and restarted" : "restarted";
  } else {
    then = absl::StrCat(e.killed ? "killed; " : "", "not restarted (", kMaxRestarts,
                        " restarts within ", kRestartWindow.count(),
                        " s): the device is out of service");
  }
  // A kernel that never returns can only be stopped by killing the process
  // that launched it: the learner is told that is what happened.
  const std::string stopped =
      e.stalled && learner_kernels
          ? absl::StrCat(
                "; the learner's kernel was stopped: a kernel that does not return "
                "within ",
                limits_.max_stall_seconds(),
                " s (Limits.max_stall_seconds) is stopped by killing its worker")
          : "";
  return absl::InternalError(
      absl::StrCat(Name(), " ", what, " during run ", run_id, "; ", then, stopped));
}

void WorkerExecutor::Supervise() {
  std::unique_lock lock(mu_);
  while (!stopping_) {
    const absl::Status started = StartWorker(lock);
    if (started.ok()) {
      if (!first_start_) first_start_ = described_;
      Log(Name(), " ready (pid ", described_.pid(), "): ", described_.device().backend(), " ",
          described_.device().name());
      cv_.notify_all();
      NotifyListener(lock);
      Watch(lock);
    } else if (!stopping_) {
      Log(Name(), " could not start: ", started.message());
      // A first start that fails is a setup error, not a crash to retry;
      // nor is a worker binary that cannot be spawned.
      if (!first_start_ || process_ == nullptr) failed_ = true;
      if (!first_start_) first_start_ = started;
    }
    if (stopping_ || failed_) break;
    cv_.wait(lock, [&] { return stopping_ || process_->ExitStatus().has_value(); });
    if (stopping_) break;
    const bool restart = RecordEnd(lock);
    std::unique_ptr<Subprocess> ended = std::move(process_);
    lock.unlock();
    ended.reset();
    lock.lock();
    NotifyListener(lock);
    if (!restart) break;
  }
  if (failed_) NotifyListener(lock);
  ready_ = false;
  if (!first_start_) first_start_ = absl::CancelledError(Name() + " was stopped while starting");
  cv_.notify_all();
  std::unique_ptr<Subprocess> process = std::move(process_);
  lock.unlock();
  if (process) Terminate(*process);
}

absl::Status WorkerExecutor::StartWorker(std::unique_lock<std::mutex>& lock) {
  ++generation_;
  kill_reason_.clear();
  stalled_ = false;
  std::vector<std::string> argv = {options_.worker_binary,
                                   "--backend",
                                   options_.backend,
                                   "--device",
                                   absl::StrCat(options_.device_index),
                                   "--socket",
                                   options_.socket_path,
                                   "--parent-pid",
                                   absl::StrCat(getpid())};
  if (options_.enable_fault_injection) argv.push_back("--enable-fault-injection");
  lock.unlock();
  unlink(options_.socket_path.c_str());
  absl::StatusOr<std::unique_ptr<Subprocess>> process = Subprocess::Spawn(argv, [this](int) {
    std::lock_guard exited(mu_);
    cv_.notify_all();
  });
  grpc::ChannelArguments arguments;
  // The socket appears only once the worker has opened its device: retry
  // connecting often rather than after gRPC's default second.
  arguments.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 100);
  arguments.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, 100);
  arguments.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 500);
  auto stub = std::make_shared<kbench::worker::v1::Worker::Stub>(grpc::CreateCustomChannel(
      "unix:" + options_.socket_path, grpc::InsecureChannelCredentials(), arguments));
  lock.lock();
  if (!process.ok()) return process.status();
  process_ = *std::move(process);

  const auto deadline = Clock::now() + kStartTimeout;
  while (true) {
    if (stopping_) return absl::CancelledError("stopping");
    if (const std::optional<int> status = process_->ExitStatus())
      return absl::UnavailableError(
          absl::StrCat(Name(), " ", DescribeExit(*status), " before it was ready"));
    if (Clock::now() >= deadline) {
      process_->Signal(SIGKILL);
      return absl::DeadlineExceededError(
          absl::StrCat(Name(), " did not answer within ", kStartTimeout.count(), " s; killed"));
    }
    lock.unlock();
    grpc::ClientContext context;
    context.set_wait_for_ready(true);
    context.set_deadline(std::chrono::system_clock::now() +
                         std::min<Clock::duration>(kDescribeAttempt, deadline - Clock::now()));
    kbench::worker::v1::DescribeResponse response;
    const grpc::Status status =
        stub->Describe(&context, kbench::worker::v1::DescribeRequest(), &response);
    lock.lock();
    if (status.ok()) {
      described_ = std::move(response);
      options_.backend = described_.device().backend();
      stub_ = std::move(stub);
      ready_ = true;
      return absl::OkStatus();
    }
  }
}

void WorkerExecutor::Watch(std::unique_lock<std::mutex>& lock) {
  while (!stopping_ && !process_->ExitStatus()) {
    if (!active_) {
      cv_.wait(lock);
      continue;
    }
    if (!active_->cancel_sent && (active_->cancel_requested || active_->sink->Cancelled())) {
      StopActiveRun(lock);
      continue;
    }
    const double stall_s = limits_.max_stall_seconds();
    if (kill_reason_.empty() && stall_s > 0 &&
        Clock::now() - active_->last_heard > std::chrono::duration<double>(stall_s)) {
      kill_reason_ = absl::StrCat("made no progress for ", stall_s, " s");
      stalled_ = true;
      Log(Name(), " (pid ", process_->pid(), ") ", kill_reason_, "; killing it");
      process_->Signal(SIGKILL);
    }
    cv_.wait_for(lock, kWatchInterval);
  }
}

void WorkerExecutor::StopActiveRun(std::unique_lock<std::mutex>& lock) {
  active_->cancel_sent = true;
  const std::string run_id = active_->run_id;
  const std::shared_ptr<kbench::worker::v1::Worker::Stub> stub = stub_;
  lock.unlock();
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + kCancelTimeout);
  kbench::worker::v1::CancelRequest request;
  request.set_run_id(run_id);
  kbench::worker::v1::CancelResponse response;
  const grpc::Status status = stub->Cancel(&context, request, &response);
  lock.lock();
  // The run may have ended meanwhile; its call (and context) is then gone.
  if (!status.ok() && active_ && active_->run_id == run_id) active_->context->TryCancel();
}

bool WorkerExecutor::RecordEnd(std::unique_lock<std::mutex>&) {
  const int status = *process_->ExitStatus();
  Ended ended;
  ended.generation = generation_;
  ended.killed = !kill_reason_.empty();
  ended.stalled = stalled_;
  ended.what = ended.killed ? kill_reason_ : DescribeExit(status);
  const auto now = Clock::now();
  while (!recent_restarts_.empty() && now - recent_restarts_.front() > kRestartWindow)
    recent_restarts_.pop_front();
  ended.restarting = recent_restarts_.size() < kMaxRestarts;
  if (ended.restarting) {
    recent_restarts_.push_back(now);
    ++restarts_;
    Log(Name(), " (pid ", process_->pid(), ") ", ended.what, "; restarting it");
  } else {
    failed_ = true;
    Log(Name(), " (pid ", process_->pid(), ") ", ended.what, "; not restarting it: it was ",
        "restarted ", kMaxRestarts, " times within ", kRestartWindow.count(), " s. Device ",
        options_.device_index, " is out of service");
  }
  ready_ = false;
  last_ended_ = ended;
  cv_.notify_all();
  return ended.restarting;
}

void WorkerExecutor::Terminate(Subprocess& process) {
  if (process.Signal(SIGTERM) && !process.WaitForExit(kTerminateGrace)) {
    Log(Name(), " (pid ", process.pid(), ") did not stop within ", kTerminateGrace.count(),
        " s of SIGTERM; killing it");
    process.Signal(SIGKILL);
  }
  process.WaitForExit(kTerminateGrace);
  if (const std::optional<int> status = process.ExitStatus())
    Log(Name(), " (pid ", process.pid(), ") stopped: ", DescribeWaitStatus(*status));
}

void WorkerExecutor::NotifyListener(std::unique_lock<std::mutex>& lock) {
  if (!changed_ || stopping_) return;
  const std::function<void()> changed = changed_;
  lock.unlock();
  changed();
  lock.lock();
}

}  // namespace kbench::server
