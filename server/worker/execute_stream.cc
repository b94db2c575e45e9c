#include "server/worker/execute_stream.h"

#include <string>
#include <utility>

namespace kbench::worker {
namespace {

v1::Progress::Step ToProto(server::RunStep step) {
  switch (step) {
    case server::RunStep::kPrepare: return v1::Progress::STEP_PREPARE;
    case server::RunStep::kVerify: return v1::Progress::STEP_VERIFY;
    case server::RunStep::kWarmup: return v1::Progress::STEP_WARMUP;
    case server::RunStep::kSample: return v1::Progress::STEP_SAMPLE;
  }
  return v1::Progress::STEP_UNSPECIFIED;
}

}  // namespace

void ExecuteStream::Emit(kbench::v1::RunEvent event) {
  v1::WorkerEvent worker_event;
  *worker_event.mutable_event() = std::move(event);
  Push(std::move(worker_event));
}

void ExecuteStream::StepStarted(server::RunStep step, std::string_view variant) {
  const auto now = std::chrono::steady_clock::now();
  if (last_step_ == step && now - last_queued_ < kProgressInterval) return;
  last_step_ = step;
  v1::WorkerEvent event;
  event.mutable_progress()->set_step(ToProto(step));
  event.mutable_progress()->set_variant(std::string(variant));
  Push(std::move(event));
}

void ExecuteStream::End(const absl::Status& status, bool device_lost) {
  v1::WorkerEvent event;
  v1::RunEnd* end = event.mutable_end();
  end->set_code(int(status.code()));
  end->set_message(std::string(status.message()));
  end->set_device_lost(device_lost);
  std::unique_lock lock(mu_);
  if (finish_) return;
  pending_.push_back(std::move(event));
  finish_ = grpc::Status::OK;
  Pump(lock);
}

bool ExecuteStream::WaitDone(std::chrono::milliseconds timeout) {
  std::unique_lock lock(mu_);
  return done_cv_.wait_for(lock, timeout, [&] { return done_; });
}

void ExecuteStream::Push(v1::WorkerEvent event) {
  last_queued_ = std::chrono::steady_clock::now();
  std::unique_lock lock(mu_);
  if (finish_ || reactor_ == nullptr) return;
  pending_.push_back(std::move(event));
  Pump(lock);
}

void ExecuteStream::Attach(ExecuteReactor* reactor) {
  std::lock_guard lock(mu_);
  reactor_ = reactor;
}

void ExecuteStream::WriteDone(bool ok) {
  std::unique_lock lock(mu_);
  write_in_flight_ = false;
  if (!ok) {  // the stream broke: the front is gone or cancelled
    cancelled_ = true;
    pending_.clear();
    if (!finish_) finish_ = grpc::Status(grpc::StatusCode::CANCELLED, "the front went away");
  }
  Pump(lock);
}

void ExecuteStream::FrontCancelled() {
  cancelled_ = true;
  std::unique_lock lock(mu_);
  pending_.clear();
  if (!finish_) finish_ = grpc::Status(grpc::StatusCode::CANCELLED, "cancelled by the front");
  Pump(lock);
}

void ExecuteStream::Detach() {
  std::lock_guard lock(mu_);
  reactor_ = nullptr;
  done_ = true;
  done_cv_.notify_all();
}

void ExecuteStream::Pump(std::unique_lock<std::mutex>& lock) {
  if (write_in_flight_ || finish_sent_ || reactor_ == nullptr) return;
  ExecuteReactor* reactor = reactor_;
  if (!pending_.empty()) {
    current_ = std::move(pending_.front());
    pending_.pop_front();
    write_in_flight_ = true;
    lock.unlock();
    // Safe unlocked: OnDone cannot come before Finish, and Finish waits for
    // this write.
    reactor->StartWrite(&current_);
    return;
  }
  if (!finish_) return;
  finish_sent_ = true;
  const grpc::Status status = *finish_;
  lock.unlock();
  reactor->Finish(status);
}

ExecuteReactor::ExecuteReactor(std::shared_ptr<ExecuteStream> stream)
    : stream_(std::move(stream)) {
  stream_->Attach(this);
}

void ExecuteReactor::OnDone() {
  stream_->Detach();
  delete this;
}

}  // namespace kbench::worker
