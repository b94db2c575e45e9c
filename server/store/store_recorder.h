// StoreRecorder: the results store as an observer of runs. It turns a run's
// life into store writes: OnAccepted -> Accept (QUEUED), OnRefused -> Accept
// (REFUSED, with the reason), OnStarted -> Start, the worker's Started event
// -> Start again with it, OnEnded -> Finish. Samples, variant results and
// the summary are collected in memory and written once, by Finish, with the
// final status of server/run/run_status.h (ERROR with the status's message).
// A status's message is stored as valid UTF-8 of at most kMaxErrorBytes
// (proto::text::ValidUtf8Prefix), and a refusal is recorded as the front kept it
// (RunAdmission.sanitized marks the record).
//
// Writes run on the recorder's own StoreThread, in the order of the calls,
// so no observer call waits on the database. A store error is logged and
// dropped: recording never fails a run. The destructor finishes every
// queued write. The store must outlive the recorder.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "server/run/run_observer.h"
#include "server/store/run_store.h"
#include "server/store/store_thread.h"
#include "server/store/unix_time.h"

namespace kbench::server::store {

// The most bytes of a run's error message that are stored.
inline constexpr size_t kMaxErrorBytes = 4096;

class StoreRecorder final : public RunObserver {
 public:
  // `now_unix_ms` stamps starts and ends (admissions carry their own time).
  explicit StoreRecorder(RunStore& store, std::function<int64_t()> now_unix_ms = NowUnixMs);

  void OnAccepted(const RunAdmission& run) override;
  void OnRefused(const RunAdmission& run, const absl::Status& why) override;
  void OnStarted(const std::string& run_id, const v1::DeviceInfo& device) override;
  void OnEvent(const std::string& run_id, const v1::RunEvent& event) override;
  void OnEnded(const std::string& run_id, const absl::Status& status) override;

 private:
  // What a run in flight has produced so far.
  struct Run {
    v1::DeviceInfo device;
    int64_t started_unix_ms = 0;
    RunOutcome outcome;
    // Index in outcome.samples of each variant's series.
    absl::flat_hash_map<std::string, int> series;
  };

  void Accept(const RunAdmission& run, const absl::Status& refused);
  // Queues `write` on the store thread; logs its error, naming `what`.
  void Write(std::string what, std::string run_id, std::function<absl::Status()> write);

  RunStore& store_;
  const std::function<int64_t()> now_unix_ms_;
  std::mutex mu_;
  absl::flat_hash_map<std::string, Run> runs_;
  StoreThread thread_;  // last: destroyed first, running the queued writes
};

}  // namespace kbench::server::store
