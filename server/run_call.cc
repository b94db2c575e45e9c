#include "server/run_call.h"

#include <chrono>
#include <utility>

#include "server/log.h"
#include "server/status_mapping.h"

namespace kbench::server {

RunCall::RunCall(std::string run_id, auth::Principal principal, std::string description,
                 AdmittedRun run, Scheduler& scheduler, std::vector<RunObserver*> observers)
    : run_id_(std::move(run_id)),
      principal_(std::move(principal)),
      description_(std::move(description)),
      run_(std::move(run)),
      scheduler_(scheduler),
      observers_(std::move(observers)) {}

QueueTicket RunCall::Ticket() const {
  return {principal_.user, principal_.AtLeast(auth::Role::kInstructor),
          std::string(run_.problem.op->name()), run_.plan.time_budget_ms / 1000};
}

void RunCall::Queued(uint32_t position, uint32_t running, double eta_seconds) {
  v1::RunEvent event;
  event.mutable_queued()->set_run_id(run_id_);
  event.mutable_queued()->set_position(position);
  event.mutable_queued()->set_running(running);
  event.mutable_queued()->set_eta_seconds(eta_seconds);
  Emit(std::move(event));
}

bool RunCall::Run(Executor& executor) {
  if (cancelled_) return false;  // the client left while the run waited
  const v1::DeviceInfo device = executor.Info();
  Log("run ", run_id_, " started on device ", device.index(), " (", device.name(),
      "): ", description_);
  for (RunObserver* o : observers_) o->OnStarted(run_id_, device);
  const auto start = std::chrono::steady_clock::now();
  const absl::Status status = executor.Execute(run_, run_id_, *this);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  Log("run ", run_id_, " ended after ", seconds, " s: ",
      status.ok() ? "OK" : status.ToString());
  Finish(status);
  return status.ok();
}

void RunCall::Abandon(const absl::Status& why) { Finish(why); }

void RunCall::Emit(v1::RunEvent event) {
  for (RunObserver* o : observers_) o->OnEvent(run_id_, event);
  std::unique_lock lock(mu_);
  if (finish_ || reactor_ == nullptr) return;
  pending_.push_back(std::move(event));
  Pump(lock);
}

void RunCall::Finish(const absl::Status& status) {
  std::unique_lock lock(mu_);
  if (finish_) {
    Pump(lock);
    return;
  }
  finish_ = ToGrpcStatus(status);
  lock.unlock();
  for (RunObserver* o : observers_) o->OnEnded(run_id_, status);
  lock.lock();
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
  }
  Pump(lock);
}

void RunCall::ClientCancelled() {
  cancelled_ = true;
  scheduler_.Withdraw(this);
  {
    std::lock_guard lock(mu_);
    pending_.clear();
  }
  Log("run ", run_id_, " cancelled by the client");
  Finish(absl::CancelledError("run cancelled by the client"));
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
