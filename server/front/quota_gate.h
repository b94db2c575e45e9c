// Per-learner quotas (kbench/v1/quota.proto), enforced at admission: a
// learner's quotas are the defaults with their cohort's overrides. Runs
// waiting at once, run streams open at once, runs per minute (requests,
// refused ones included), and device time per hour and per day. A run over a quota is refused with
// RESOURCE_EXHAUSTED naming the quota, its limit and when it frees up, e.g.
// "quota: device time 600 s per hour used (612 s); resets in 14 min".
// Only learners have quotas: instructors, admins and the anonymous caller
// of a server without identities (an admin) have none. A quota of 0 is no
// limit.
//
// The counts of waiting and open runs and the minute's runs are kept here,
// from the runs this gate admitted and their observer events (the gate is
// one of the runs' observers), plus, where servers share the store, what
// the others recorded (RunStore::ActivityElsewhereOf); device time comes
// from the results store (RunStore::DeviceTimeOf). Each is an indexed query
// per check, made on the admitting thread. Two servers admitting the same
// learner at the same moment may each miss the other's newest run: the
// counts across servers hold to within the runs admitted meanwhile.
//
// Thread-safe.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "kbench/v1/quota.pb.h"
#include "server/identity/principal.h"
#include "server/run/run_observer.h"
#include "server/store/run_store.h"

namespace kbench::server {

// The device time of a user's runs that ended at or after a time (Unix ms):
// RunStore::DeviceTimeOf.
using DeviceTimeQuery = std::function<absl::StatusOr<store::DeviceTime>(const std::string& user,
                                                                        int64_t since_unix_ms)>;

// `user`'s runs on the other servers sharing the results store:
// RunStore::ActivityElsewhereOf.
using ElsewhereQuery = std::function<absl::StatusOr<store::ActivityElsewhere>(
    const std::string& user, int64_t since_unix_ms)>;

class QuotaGate final : public RunObserver {
 public:
  // `defaults`: every learner's quotas but where `overrides` (by cohort,
  // as the store has them) say otherwise. `device_time` may be empty: then
  // the device-time quotas are not checked (a server without a store).
  // `elsewhere` may be empty: then the counts of waiting and open runs and
  // of the minute's requests are this server's alone; with it, each check
  // adds what the other servers sharing the store recorded of the user.
  QuotaGate(v1::QuotaLimits defaults, DeviceTimeQuery device_time,
            std::map<std::string, v1::QuotaOverrides> overrides = {},
            ElsewhereQuery elsewhere = {});

  // The quotas of `principal`: none (all 0) unless a learner; a learner's
  // are CohortQuotas of their cohort.
  v1::QuotaLimits QuotasOf(const identity::Principal& principal) const;
  // The defaults with `cohort`'s overrides.
  v1::QuotaLimits CohortQuotas(const std::string& cohort) const;
  v1::QuotaOverrides OverridesOf(const std::string& cohort) const;
  // Replaces `cohort`'s overrides (once the store has them).
  void SetOverrides(const std::string& cohort, v1::QuotaOverrides overrides);
  // Counts SetOverrides calls: what a read of the store started after.
  uint64_t OverridesVersion() const;
  // Replaces every cohort's overrides with `overrides`, the store's as read
  // since OverridesVersion() was `version` (CohortQuotaRefresh); does
  // nothing when SetOverrides has changed them since, so that a read from
  // before this server's own change cannot undo it. Whether it replaced.
  bool ReplaceOverrides(std::map<std::string, v1::QuotaOverrides> overrides, uint64_t version);
  // What `user` uses now of each quota; blocks on the store's device-time
  // query (call it off gRPC's threads).
  absl::StatusOr<v1::QuotaUsage> UsageOf(const std::string& user, int64_t now_unix_ms) const;

  // Counts a request of `run`'s user (its principal and unix_ms set)
  // toward runs_per_minute, before it is checked: a request that is then
  // refused (a bad request, another quota) counts as well, so that a
  // learner's flood of bad requests is itself refused. RESOURCE_EXHAUSTED
  // naming the quota once the minute's requests reach it; that request is
  // not counted.
  absl::Status CountRequest(const RunAdmission& run);

  // Admits `run` (its principal, run_id and unix_ms set) within its user's
  // quotas but runs_per_minute (CountRequest) and counts it as waiting and
  // open from now on; or refuses it with RESOURCE_EXHAUSTED naming the
  // first quota it is over. UNAVAILABLE when the store cannot tell the
  // device time used.
  absl::Status Admit(const RunAdmission& run);

  // RunObserver: a run that starts no longer waits; one that ends is no
  // longer open.
  void OnStarted(const std::string& run_id, const v1::DeviceInfo& device) override;
  void OnEnded(const std::string& run_id, const absl::Status& status) override;

 private:
  struct Open {
    std::string user;
    bool started = false;
  };
  struct Usage {
    uint32_t waiting = 0;
    uint32_t open = 0;
    std::deque<int64_t> requested_unix_ms;  // the last minute's requests
  };
  absl::Status CheckDeviceTime(const std::string& user, double limit_seconds, int64_t window_ms,
                               const char* per, int64_t now_unix_ms) const;

  // What the other servers recorded of `user`; zeros without `elsewhere_`.
  absl::StatusOr<store::ActivityElsewhere> Elsewhere(const std::string& user,
                                                     int64_t since_unix_ms) const;

  const v1::QuotaLimits defaults_;
  const DeviceTimeQuery device_time_;
  const ElsewhereQuery elsewhere_;

  mutable std::mutex mu_;
  std::map<std::string, v1::QuotaOverrides> overrides_;  // by cohort
  uint64_t overrides_version_ = 0;                       // SetOverrides calls
  std::map<std::string, Open> open_;                     // by run id
  std::map<std::string, Usage> usage_;  // by user; users with open runs or recent ones
};

// "14 min", "23 s", "2 h": how long until something frees up.
std::string WaitText(int64_t ms);

}  // namespace kbench::server
