#include "server/live/live_runs.h"

#include <algorithm>
#include <utility>

namespace kbench::server {

LiveRuns::LiveRuns(std::function<int64_t()> now_unix_ms) : now_unix_ms_(std::move(now_unix_ms)) {}

void LiveRuns::OnAccepted(const RunAdmission& run) {
  LiveRun live;
  live.run_id = run.run_id;
  live.user = run.principal.user;
  live.cohort = run.principal.cohort;
  live.peer = run.peer;
  live.label = run.request.label();
  live.op = run.op;
  live.accepted_unix_ms = run.unix_ms;
  std::lock_guard lock(mu_);
  runs_.push_back(std::move(live));
}

void LiveRuns::OnStarted(const std::string& run_id, const v1::DeviceInfo& device) {
  const int64_t unix_ms = now_unix_ms_();
  std::lock_guard lock(mu_);
  for (LiveRun& run : runs_) {
    if (run.run_id != run_id) continue;
    run.started_unix_ms = unix_ms;
    run.device_index = device.index();
  }
}

void LiveRuns::OnEvent(const std::string& run_id, const v1::RunEvent& event) {
  if (!event.has_queued()) return;
  std::lock_guard lock(mu_);
  for (LiveRun& run : runs_)
    if (run.run_id == run_id) run.queue_position = event.queued().position();
}

void LiveRuns::OnEnded(const std::string& run_id, const absl::Status& /*status*/) {
  std::lock_guard lock(mu_);
  std::erase_if(runs_, [&](const LiveRun& run) { return run.run_id == run_id; });
}

void LiveRuns::Fill(LiveState& state) const {
  std::lock_guard lock(mu_);
  state.waiting.clear();
  state.running.clear();
  for (const LiveRun& run : runs_) {
    (run.started_unix_ms == 0 ? state.waiting : state.running).push_back(run);
  }
  std::stable_sort(
      state.waiting.begin(), state.waiting.end(),
      [](const LiveRun& a, const LiveRun& b) { return a.queue_position < b.queue_position; });
}

}  // namespace kbench::server
