#include "server/store/store_recorder.h"

#include <utility>

#include "proto/text/utf8.h"
#include "server/common/log.h"
#include "server/run/run_status.h"

namespace kbench::server::store {

StoreRecorder::StoreRecorder(RunStore& store, std::function<int64_t()> now_unix_ms)
    : store_(store), now_unix_ms_(std::move(now_unix_ms)) {}

void StoreRecorder::OnAccepted(const RunAdmission& run) {
  {
    std::lock_guard lock(mu_);
    runs_[run.run_id];
  }
  Accept(run, absl::OkStatus());
}

void StoreRecorder::OnRefused(const RunAdmission& run, const absl::Status& why) {
  Accept(run, why);
}

void StoreRecorder::Accept(const RunAdmission& run, const absl::Status& refused) {
  v1::RunRecord record;
  record.set_run_id(run.run_id);
  record.set_user(run.principal.user);
  record.set_peer(run.peer);
  record.set_label(run.request.label());
  record.set_op(run.op);
  *record.mutable_request() = run.request;
  record.set_accepted_unix_ms(run.unix_ms);
  record.set_status(refused.ok() ? v1::RUN_STATUS_QUEUED : v1::RUN_STATUS_REFUSED);
  record.set_error(proto::text::ValidUtf8Prefix(std::string(refused.message()), kMaxErrorBytes));
  record.set_sanitized(run.sanitized);
  Write(refused.ok() ? "its admission" : "its refusal", run.run_id,
        [this, record = std::move(record)] { return store_.Accept(record); });
}

void StoreRecorder::OnStarted(const std::string& run_id, const v1::DeviceInfo& device) {
  // Until the worker's Started event comes, what the front knows of it.
  v1::Started started;
  started.set_run_id(run_id);
  started.set_backend(device.backend());
  started.set_device(device.name());
  const int64_t unix_ms = now_unix_ms_();
  {
    std::lock_guard lock(mu_);
    Run& run = runs_[run_id];
    run.device = device;
    run.started_unix_ms = unix_ms;
  }
  Write("its start", run_id, [this, run_id, device, started = std::move(started), unix_ms] {
    return store_.Start(run_id, device, started, unix_ms);
  });
}

void StoreRecorder::OnEvent(const std::string& run_id, const v1::RunEvent& event) {
  std::lock_guard lock(mu_);
  Run& run = runs_[run_id];
  switch (event.event_case()) {
    case v1::RunEvent::kStarted:
      Write("its Started event", run_id,
            [this, run_id, device = run.device, started = event.started(),
             unix_ms = run.started_unix_ms] {
              return store_.Start(run_id, device, started, unix_ms);
            });
      break;
    case v1::RunEvent::kSamples:
      for (const v1::VariantSamples& batch : event.samples().variants()) {
        auto [it, added] = run.series.try_emplace(batch.variant(), run.outcome.samples.size());
        if (added) run.outcome.samples.Add()->set_variant(batch.variant());
        run.outcome.samples[it->second].mutable_ms()->MergeFrom(batch.ms());
      }
      break;
    case v1::RunEvent::kVariantResult:
      *run.outcome.results.Add() = event.variant_result();
      break;
    case v1::RunEvent::kSummary:
      run.outcome.summary = event.summary();
      break;
    case v1::RunEvent::kQueued:
    case v1::RunEvent::EVENT_NOT_SET:
      break;
  }
}

void StoreRecorder::OnEnded(const std::string& run_id, const absl::Status& status) {
  RunOutcome outcome;
  {
    std::lock_guard lock(mu_);
    auto node = runs_.extract(run_id);
    if (!node.empty()) outcome = std::move(node.mapped().outcome);
  }
  outcome.status = FinalStatus(
      status, outcome.summary ? std::optional(outcome.summary->all_verified()) : std::nullopt);
  const std::string message =
      proto::text::ValidUtf8Prefix(std::string(status.message()), kMaxErrorBytes);
  if (outcome.status == v1::RUN_STATUS_ERROR) {
    outcome.error = status.ok() ? "the run ended without its summary" : message;
  } else if (outcome.status == v1::RUN_STATUS_CANCELLED) {
    outcome.error = message;
  }
  outcome.unix_ms = now_unix_ms_();
  Write("its end", run_id,
        [this, run_id, outcome = std::move(outcome)] { return store_.Finish(run_id, outcome); });
}

void StoreRecorder::Write(std::string what, std::string run_id,
                          std::function<absl::Status()> write) {
  thread_.Post([what = std::move(what), run_id = std::move(run_id), write = std::move(write)] {
    const absl::Status status = write();
    if (!status.ok()) {
      Log("store: cannot record ", what, " of run ", run_id, ": ", status.ToString());
    }
  });
}

}  // namespace kbench::server::store
