#include "server/front/run_call.h"

#include <chrono>
#include <utility>

#include "absl/strings/str_cat.h"
#include "server/common/log.h"
#include "server/common/status_mapping.h"

namespace kbench::server {

RunCall::RunCall(std::string run_id, auth::Principal principal, std::string description,
                 AdmittedRun run, Scheduler& scheduler, std::vector<RunObserver*> observers,
                 ClientStreams::Slot stream_slot, std::chrono::duration<double> reader_stall)
    : run_id_(std::move(run_id)),
      principal_(std::move(principal)),
      description_(std::move(description)),
      run_(std::move(run)),
      scheduler_(scheduler),
      observers_(std::move(observers)),
      reader_stall_(reader_stall),
      stream_slot_(std::move(stream_slot)) {}

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
  Finish(executor.Execute(run_, run_id_, *this));
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // The run's end as observers saw it: a cancellation says who cancelled.
  absl::Status ended;
  {
    std::lock_guard lock(mu_);
    ended = ended_;
  }
  Log("run ", run_id_, " ended after ", seconds, " s: ", ended.ok() ? "OK" : ended.ToString());
  return ended.ok();
}

void RunCall::Abandon(const absl::Status& why) { Finish(why); }

void RunCall::Emit(v1::RunEvent event) {
  for (RunObserver* o : observers_) o->OnEvent(run_id_, event);
  std::unique_lock lock(mu_);
  if (finish_ || reactor_ == nullptr) return;
  pending_.Push(std::move(event));
  Pump(lock);
}

void RunCall::Finish(const absl::Status& status) {
  std::unique_lock lock(mu_);
  if (finish_) {
    Pump(lock);
    return;
  }
  finish_ = ToGrpcStatus(status);
  ended_ = status;
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
    pending_.Clear();
  }
  Pump(lock);
}

void RunCall::StopRun() {
  cancelled_ = true;
  scheduler_.Withdraw(this);
  std::lock_guard lock(mu_);
  pending_.Clear();
}

// Each end below is told (Finish) before the run is stopped: the runner,
// seeing the cancellation, ends with a status of its own, which must not
// be the first.
void RunCall::ClientCancelled() {
  {
    std::lock_guard lock(mu_);
    if (finish_sent_) return;  // the RPC had ended; only its callbacks remain
  }
  Log("run ", run_id_, " cancelled by the client");
  Finish(absl::CancelledError("run cancelled by the client"));
  StopRun();
}

void RunCall::ServerCancelled(const absl::Status& why) {
  {
    std::lock_guard lock(mu_);
    if (finish_) return;  // already ended: nothing to cancel
  }
  Log("run ", run_id_, " cancelled by the server: ", why.message());
  Finish(why);
  StopRun();
}

bool RunCall::CheckReader(ReaderWatch::Clock::time_point now) {
  bool run_ended = false;
  {
    std::lock_guard lock(mu_);
    if (finish_sent_ || reactor_ == nullptr) return false;
    if (!write_in_flight_ || now - write_started_ < reader_stall_) return true;
    run_ended = finish_.has_value();
  }
  const std::string why = absl::StrCat(
      "the client read nothing for ", reader_stall_.count(),
      " s while events waited (Limits.max_reader_stall_seconds): ",
      run_ended ? "the stream was ended after its run" : "the run was cancelled");
  Log("run ", run_id_, ": ", why);
  const absl::Status stalled = absl::ResourceExhaustedError(why);
  Finish(stalled);
  StopRun();
  // The stalled write blocks the ordinary finish; this one goes now, and
  // says the stall even where the run had ended (its results were dropped).
  std::unique_lock lock(mu_);
  if (finish_sent_ || reactor_ == nullptr) return false;
  finish_sent_ = true;
  finish_ = ToGrpcStatus(stalled);
  RunReactor* reactor = reactor_;
  const grpc::Status status = *finish_;
  lock.unlock();
  reactor->Finish(status);
  return false;
}

void RunCall::Detach() {
  std::lock_guard lock(mu_);
  reactor_ = nullptr;
  stream_slot_.reset();
}

void RunCall::Pump(std::unique_lock<std::mutex>& lock) {
  if (write_in_flight_ || finish_sent_ || reactor_ == nullptr) return;
  RunReactor* reactor = reactor_;
  if (!pending_.empty()) {
    current_ = pending_.Pop();
    write_in_flight_ = true;
    write_started_ = ReaderWatch::Clock::now();
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
