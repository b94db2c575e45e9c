#include "server/worker/worker_service.h"

#include <unistd.h>

#include <utility>

#include "server/common/log.h"
#include "server/common/status_mapping.h"
#include "server/run/kernel_includes.h"
#include "server/run/validation.h"
#include "server/worker/fault_injector.h"

namespace kbench::server::worker {
namespace {

// How long a run whose device was lost waits for its stream to reach the
// front before the worker exits anyway.
constexpr std::chrono::seconds kLastWordsTimeout{5};

}  // namespace

WorkerService::WorkerService(LocalExecutor& executor, uint32_t device_count,
                             bool enable_fault_injection, std::function<void()> device_lost)
    : executor_(executor),
      device_count_(device_count),
      enable_fault_injection_(enable_fault_injection),
      device_lost_(std::move(device_lost)),
      run_thread_([this] { RunLoop(); }) {}

WorkerService::~WorkerService() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
    for (QueuedRun& queued : queue_)
      queued.stream->End(absl::UnavailableError("the worker is stopping"), false);
    queue_.clear();
  }
  cv_.notify_all();
  run_thread_.join();
}

grpc::ServerUnaryReactor* WorkerService::Compile(grpc::CallbackServerContext* context,
                                                 const kbench::v1::CompileKernelRequest* request,
                                                 kbench::v1::CompileFacts* response) {
  auto* reactor = context->DefaultReactor();
  if (request->kernel().language() == kbench::v1::KERNEL_LANGUAGE_CUDA_CPP)
    if (absl::Status s = server::CheckKernelIncludes("kernel.source", request->kernel().source());
        !s.ok()) {
      reactor->Finish(server::ToGrpcStatus(s));
      return reactor;
    }
  absl::Status queued = compiles_.Submit([this, reactor, request, response] {
    absl::StatusOr<kbench::v1::CompileFacts> facts = executor_.Compile(*request);
    if (facts.ok()) *response = *std::move(facts);
    reactor->Finish(server::ToGrpcStatus(facts.status()));
  });
  if (!queued.ok()) reactor->Finish(server::ToGrpcStatus(queued));
  return reactor;
}

grpc::ServerUnaryReactor* WorkerService::Describe(grpc::CallbackServerContext* context,
                                                  const kbench::worker::v1::DescribeRequest*,
                                                  kbench::worker::v1::DescribeResponse* response) {
  *response->mutable_device() = executor_.Info();
  response->set_device_count(device_count_);
  response->set_pid(uint32_t(getpid()));
  auto* reactor = context->DefaultReactor();
  reactor->Finish(grpc::Status::OK);
  return reactor;
}

grpc::ServerWriteReactor<kbench::worker::v1::WorkerEvent>* WorkerService::Execute(
    grpc::CallbackServerContext*, const kbench::worker::v1::ExecuteRequest* request) {
  auto stream = std::make_shared<ExecuteStream>();
  auto* reactor = ExecuteStream::NewReactor(stream);
  if (request->request().fault() != kbench::v1::FAULT_NONE && !enable_fault_injection_) {
    stream->End(
        absl::PermissionDeniedError("fault: this worker runs without --enable-fault-injection"),
        false);
    return reactor;
  }
  absl::StatusOr<server::AdmittedRun> run = server::Admit(
      request->request(), request->limits(), executor_.Info().backend(), server::TimingPlan{});
  if (!run.ok()) {
    stream->End(run.status(), false);
    return reactor;
  }
  {
    std::lock_guard lock(mu_);
    if (stopping_) {
      stream->End(absl::UnavailableError("the worker is stopping"), false);
      return reactor;
    }
    queue_.push_back({stream, *std::move(run), request->run_id()});
  }
  cv_.notify_all();
  return reactor;
}

grpc::ServerUnaryReactor* WorkerService::Cancel(grpc::CallbackServerContext* context,
                                                const kbench::worker::v1::CancelRequest* request,
                                                kbench::worker::v1::CancelResponse*) {
  std::shared_ptr<ExecuteStream> stream;
  {
    std::lock_guard lock(mu_);
    if (running_stream_ && running_id_ == request->run_id()) stream = running_stream_;
    for (const QueuedRun& queued : queue_)
      if (queued.run_id == request->run_id()) stream = queued.stream;
  }
  auto* reactor = context->DefaultReactor();
  if (!stream) {
    reactor->Finish(grpc::Status(grpc::StatusCode::NOT_FOUND, "no such run on this worker"));
    return reactor;
  }
  stream->CancelRun();
  reactor->Finish(grpc::Status::OK);
  return reactor;
}

void WorkerService::RunLoop() {
  while (true) {
    QueuedRun queued;
    {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (stopping_) return;
      queued = std::move(queue_.front());
      queue_.pop_front();
      running_id_ = queued.run_id;
      running_stream_ = queued.stream;
    }
    const bool go_on = RunOne(queued);
    {
      std::lock_guard lock(mu_);
      running_id_.clear();
      running_stream_.reset();
    }
    if (!go_on) return;
  }
}

bool WorkerService::RunOne(QueuedRun& queued) {
  FaultInjector sink(*queued.stream, queued.run.problem.request.fault(), executor_.device());
  const absl::Status status = sink.Outcome(executor_.Execute(queued.run, queued.run_id, sink));
  const bool lost = executor_.Failed();
  queued.stream->End(status, lost);
  if (!lost) return true;
  server::Log("run ", queued.run_id, " left the device unusable (", status.ToString(),
              "); exiting so that the front starts a new worker");
  queued.stream->WaitDone(kLastWordsTimeout);
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
    for (QueuedRun& waiting : queue_)
      waiting.stream->End(absl::UnavailableError("the worker lost its device"), false);
    queue_.clear();
  }
  device_lost_();
  return false;
}

}  // namespace kbench::server::worker
