// LiveRuns: an observer of runs that keeps the runs in flight, for the
// LiveState of the dashboard and the metrics. OnAccepted adds a waiting run,
// OnStarted moves it onto its device, OnEnded drops it; a refused run is
// never held. Waiting runs are listed in the order the scheduler will start
// them: by the position of their latest Queued event (fair share, not
// acceptance), ties in the order they were accepted.
//
// Thread safety: every method may be called from any thread.
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "server/live/live_state.h"
#include "server/run/run_observer.h"
#include "server/store/unix_time.h"

namespace kbench::server {

class LiveRuns final : public RunObserver {
 public:
  // `now_unix_ms` stamps starts.
  explicit LiveRuns(std::function<int64_t()> now_unix_ms = store::NowUnixMs);

  void OnAccepted(const RunAdmission& run) override;
  void OnStarted(const std::string& run_id, const v1::DeviceInfo& device) override;
  void OnEvent(const std::string& run_id, const v1::RunEvent& event) override;
  void OnEnded(const std::string& run_id, const absl::Status& status) override;

  // Fills state.waiting and state.running; leaves state.info as it is.
  void Fill(LiveState& state) const;

 private:
  const std::function<int64_t()> now_unix_ms_;
  mutable std::mutex mu_;
  // In order of acceptance.
  std::vector<LiveRun> runs_;
};

}  // namespace kbench::server
