// RunMetrics: the Prometheus metrics of runs, as an observer of them. On the
// registry it is given it registers and keeps
//   kbench_runs_total{op,status}                 runs by op and final status
//       (server/run/run_status.h's names: ok, failed_verification, cancelled,
//       error; refused for a request refused at admission; op "none" when
//       the request named no op),
//   kbench_verification_failures_total{op,variant}  variant results whose
//       output failed verification,
//   kbench_run_queue_wait_seconds{op}            accepted -> started,
//   kbench_run_duration_seconds{op}              started -> ended,
//   kbench_device_sm_clock_mhz{device}           the highest SM clock the
//       last variant result on the device (by index) saw; set only by runs
//       whose backend reads clocks.
// The gauges of the server's present state are LiveGauges'.
//
// Thread safety: as RunObserver requires; every call is short (no I/O).
// The registry must outlive the object.
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "prometheus/counter.h"
#include "prometheus/family.h"
#include "prometheus/gauge.h"
#include "prometheus/histogram.h"
#include "prometheus/registry.h"
#include "server/run/run_observer.h"
#include "server/store/unix_time.h"

namespace kbench::server::metrics {

class RunMetrics final : public RunObserver {
 public:
  // `now_unix_ms` stamps starts and ends (admissions carry their own time).
  explicit RunMetrics(prometheus::Registry& registry,
                      std::function<int64_t()> now_unix_ms = store::NowUnixMs);

  void OnAccepted(const RunAdmission& run) override;
  void OnRefused(const RunAdmission& run, const absl::Status& why) override;
  void OnStarted(const std::string& run_id, const v1::DeviceInfo& device) override;
  void OnEvent(const std::string& run_id, const v1::RunEvent& event) override;
  void OnEnded(const std::string& run_id, const absl::Status& status) override;

 private:
  // What is known of a run in flight.
  struct Run {
    std::string op;
    int64_t accepted_unix_ms = 0;
    int64_t started_unix_ms = 0;
    uint32_t device_index = 0;
    // The Summary's all_verified once it arrived.
    std::optional<bool> all_verified;
  };

  const std::function<int64_t()> now_unix_ms_;
  prometheus::Family<prometheus::Counter>& runs_;
  prometheus::Family<prometheus::Counter>& verification_failures_;
  prometheus::Family<prometheus::Histogram>& queue_wait_;
  prometheus::Family<prometheus::Histogram>& duration_;
  prometheus::Family<prometheus::Gauge>& sm_clock_;

  std::mutex mu_;
  absl::flat_hash_map<std::string, Run> runs_in_flight_;
};

}  // namespace kbench::server::metrics
