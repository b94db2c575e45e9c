#include "server/front/run_call.h"

#include <chrono>
#include <utility>

#include "absl/strings/str_cat.h"
#include "server/common/log.h"
#include "server/run/validation.h"

namespace kbench::server {

RunCall::RunCall(std::string run_id, identity::Principal principal, std::string description,
                 AdmittedRun run, RunQueue& queue, std::vector<RunObserver*> observers,
                 ClientStreams::Slot stream_slot, std::chrono::duration<double> reader_stall)
    : run_id_(std::move(run_id)),
      principal_(std::move(principal)),
      description_(std::move(description)),
      run_(std::move(run)),
      queue_(queue),
      observers_(std::move(observers)),
      reader_stall_(reader_stall),
      stream_slot_(std::move(stream_slot)) {}

grpc::ServerWriteReactor<v1::RunEvent>* RunCall::NewReactor(std::shared_ptr<RunCall> call) {
  Writer* writer = call.get();  // a private base: converted here, where it is accessible
  return Writer::NewReactor(std::shared_ptr<Writer>(std::move(call), writer));
}

v1::RunRequest RunCall::Request() const { return Resolved(run_); }

QueueTicket RunCall::Ticket() const {
  return {principal_.user, principal_.AtLeast(identity::Role::kInstructor),
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
  {
    std::lock_guard lock(observers_mu_);
    if (!observers_told_end_)
      for (RunObserver* o : observers_) o->OnStarted(run_id_, device);
  }
  const auto start = std::chrono::steady_clock::now();
  Finish(executor.Execute(run_, run_id_, *this));
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // The run's end as observers saw it: a cancellation says who cancelled.
  const absl::Status ended = *state().ended;
  Log("run ", run_id_, " ended after ", seconds, " s: ", ended.ok() ? "OK" : ended.ToString());
  return ended.ok();
}

void RunCall::Abandon(const absl::Status& why) { Finish(why); }

void RunCall::Emit(v1::RunEvent event) {
  {
    std::lock_guard lock(observers_mu_);
    if (!observers_told_end_)
      for (RunObserver* o : observers_) o->OnEvent(run_id_, event);
  }
  Write(std::move(event));
}

void RunCall::Finish(const absl::Status& status) {
  Writer::Finish(status, [&] {
    std::lock_guard lock(observers_mu_);
    observers_told_end_ = true;
    for (RunObserver* o : observers_) o->OnEnded(run_id_, status);
  });
}

void RunCall::StopRun() {
  cancelled_ = true;
  queue_.Withdraw(this);
  Drop();
}

void RunCall::OnWriteFailed() { cancelled_ = true; }

// Each end below is told (Finish) before the run is stopped: the runner,
// seeing the cancellation, ends with a status of its own, which must not
// be the first.
void RunCall::OnCancel() {
  if (state().closed) return;  // the RPC had ended; only its callbacks remain
  Log("run ", run_id_, " cancelled by the client");
  Finish(absl::CancelledError("run cancelled by the client"));
  StopRun();
}

void RunCall::ServerCancelled(const absl::Status& why) {
  if (state().ended) return;  // already ended: nothing to cancel
  Log("run ", run_id_, " cancelled by the server: ", why.message());
  Finish(why);
  StopRun();
}

bool RunCall::CheckReader(ReaderWatch::Clock::time_point now) {
  const State stream = state();
  if (stream.closed) return false;
  if (!stream.write_started || now - *stream.write_started < reader_stall_) return true;
  const std::string why =
      absl::StrCat("the client read nothing for ", reader_stall_.count(),
                   " s while events waited (Limits.max_reader_stall_seconds): ",
                   stream.ended ? "the stream was ended after its run" : "the run was cancelled");
  Log("run ", run_id_, ": ", why);
  const absl::Status stalled = absl::ResourceExhaustedError(why);
  Finish(stalled);
  StopRun();
  // The stalled write blocks the ordinary finish; this one goes now, and
  // says the stall even where the run had ended (its results were dropped).
  FinishNow(stalled);
  return false;
}

void RunCall::OnDone() { stream_slot_.reset(); }

}  // namespace kbench::server
