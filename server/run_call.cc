#include "server/run_call.h"

#include <chrono>
#include <utility>

#include "server/log.h"
#include "server/status_mapping.h"

namespace kbench::server {

RunCall::RunCall(std::string run_id, std::string description,
                 Scheduler& scheduler, Body body)
    : run_id_(std::move(run_id)),
      description_(std::move(description)),
      scheduler_(scheduler),
      body_(std::move(body)) {}

void RunCall::Queued(uint32_t position, uint32_t running) {
  v1::RunEvent event;
  event.mutable_queued()->set_run_id(run_id_);
  event.mutable_queued()->set_position(position);
  event.mutable_queued()->set_running(running);
  Emit(std::move(event));
}

void RunCall::Run(Device& device) {
  if (cancelled_) return;  // the client left while the run waited
  Log("run ", run_id_, " started on ", device.Info().name(), ": ", description_);
  const auto start = std::chrono::steady_clock::now();
  const absl::Status status = body_(device, run_id_, *this);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  Log("run ", run_id_, " ended after ", seconds, " s: ",
      status.ok() ? "OK" : status.ToString());
  Finish(ToGrpcStatus(status));
}

void RunCall::Abandon(const absl::Status& why) { Finish(ToGrpcStatus(why)); }

void RunCall::Emit(v1::RunEvent event) {
  std::unique_lock lock(mu_);
  if (finish_ || reactor_ == nullptr) return;
  pending_.push_back(std::move(event));
  Pump(lock);
}

void RunCall::Finish(const grpc::Status& status) {
  std::unique_lock lock(mu_);
  if (!finish_) finish_ = status;
  Pump(lock);
}

void RunCall::Attach(RunReactor* reactor) {
  std::lock_guard lock(mu_);
  reactor_ = reactor;
}

void RunCall::WriteDone(bool ok) {
  std::unique_lock lock(mu_);
  write_in_flight_ = false;
  if (!ok) {  // the stream broke: the client is gone
    cancelled_ = true;
    pending_.clear();
    if (!finish_) finish_ = grpc::Status(grpc::StatusCode::CANCELLED, "stream closed");
  }
  Pump(lock);
}

void RunCall::ClientCancelled() {
  cancelled_ = true;
  scheduler_.Withdraw(this);
  std::unique_lock lock(mu_);
  pending_.clear();
  if (!finish_) {
    finish_ = grpc::Status(grpc::StatusCode::CANCELLED, "run cancelled by the client");
    Log("run ", run_id_, " cancelled by the client");
  }
  Pump(lock);
}

void RunCall::Detach() {
  std::lock_guard lock(mu_);
  reactor_ = nullptr;
}

void RunCall::Pump(std::unique_lock<std::mutex>& lock) {
  if (write_in_flight_ || finish_sent_ || reactor_ == nullptr) return;
  RunReactor* reactor = reactor_;
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

RunReactor::RunReactor(std::shared_ptr<RunCall> call) : call_(std::move(call)) {
  call_->Attach(this);
}

void RunReactor::OnDone() {
  call_->Detach();
  delete this;
}

}  // namespace kbench::server
