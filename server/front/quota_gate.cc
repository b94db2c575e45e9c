#include "server/front/quota_gate.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "kernels/common/status_macros.h"
#include "server/front/quota_limits.h"
#include "server/front/refusal.h"

namespace kbench::server {
namespace {

constexpr int64_t kMinuteMs = 60 * 1000;
constexpr int64_t kHourMs = 60 * kMinuteMs;
constexpr int64_t kDayMs = 24 * kHourMs;

// `retry_after_ms` 0 when the reset waits on an event (a run's start or end).
absl::Status OverQuota(const std::string& what, int64_t retry_after_ms = 0) {
  return Refused(v1::Refusal::REASON_QUOTA, absl::StrCat("quota: ", what),
                 double(std::max<int64_t>(retry_after_ms, 0)) / 1000);
}

}  // namespace

std::string WaitText(int64_t ms) {
  ms = std::max<int64_t>(ms, 0);
  if (ms < kMinuteMs) return absl::StrCat((ms + 999) / 1000, " s");
  if (ms < 2 * kHourMs) return absl::StrCat((ms + kMinuteMs - 1) / kMinuteMs, " min");
  return absl::StrCat((ms + kHourMs - 1) / kHourMs, " h");
}

QuotaGate::QuotaGate(v1::QuotaLimits defaults, DeviceTimeQuery device_time,
                     std::map<std::string, v1::QuotaOverrides> overrides, ElsewhereQuery elsewhere)
    : defaults_(std::move(defaults)),
      device_time_(std::move(device_time)),
      elsewhere_(std::move(elsewhere)),
      overrides_(std::move(overrides)) {}

absl::StatusOr<store::ActivityElsewhere> QuotaGate::Elsewhere(const std::string& user,
                                                              int64_t since_unix_ms) const {
  if (!elsewhere_) return store::ActivityElsewhere();
  absl::StatusOr<store::ActivityElsewhere> activity = elsewhere_(user, since_unix_ms);
  if (!activity.ok())
    return absl::UnavailableError(
        absl::StrCat("quota: your runs on the other servers cannot be read from the results "
                     "store (",
                     activity.status().message(), "); retry"));
  return activity;
}

v1::QuotaLimits QuotaGate::QuotasOf(const identity::Principal& principal) const {
  return principal.role == identity::Role::kLearner ? CohortQuotas(principal.cohort)
                                                    : v1::QuotaLimits();
}

v1::QuotaLimits QuotaGate::CohortQuotas(const std::string& cohort) const {
  const v1::QuotaOverrides o = OverridesOf(cohort);
  v1::QuotaLimits quotas = defaults_;
  if (o.has_queued_runs()) quotas.set_queued_runs(o.queued_runs());
  if (o.has_open_streams()) quotas.set_open_streams(o.open_streams());
  if (o.has_device_seconds_per_hour())
    quotas.set_device_seconds_per_hour(o.device_seconds_per_hour());
  if (o.has_device_seconds_per_day()) quotas.set_device_seconds_per_day(o.device_seconds_per_day());
  if (o.has_runs_per_minute()) quotas.set_runs_per_minute(o.runs_per_minute());
  return quotas;
}

v1::QuotaOverrides QuotaGate::OverridesOf(const std::string& cohort) const {
  std::lock_guard lock(mu_);
  const auto it = overrides_.find(cohort);
  return it == overrides_.end() ? v1::QuotaOverrides() : it->second;
}

void QuotaGate::SetOverrides(const std::string& cohort, v1::QuotaOverrides overrides) {
  std::lock_guard lock(mu_);
  overrides_[cohort] = std::move(overrides);
  ++overrides_version_;
}

uint64_t QuotaGate::OverridesVersion() const {
  std::lock_guard lock(mu_);
  return overrides_version_;
}

bool QuotaGate::ReplaceOverrides(std::map<std::string, v1::QuotaOverrides> overrides,
                                 uint64_t version) {
  std::lock_guard lock(mu_);
  if (version != overrides_version_) return false;
  overrides_ = std::move(overrides);
  return true;
}

absl::StatusOr<v1::QuotaUsage> QuotaGate::UsageOf(const std::string& user,
                                                  int64_t now_unix_ms) const {
  v1::QuotaUsage usage;
  if (device_time_) {
    KBENCH_ASSIGN_OR_RETURN(store::DeviceTime hour, device_time_(user, now_unix_ms - kHourMs));
    KBENCH_ASSIGN_OR_RETURN(store::DeviceTime day, device_time_(user, now_unix_ms - kDayMs));
    usage.set_device_seconds_last_hour(hour.seconds);
    usage.set_device_seconds_last_day(day.seconds);
  }
  KBENCH_ASSIGN_OR_RETURN(const store::ActivityElsewhere elsewhere,
                          Elsewhere(user, now_unix_ms - kMinuteMs + 1));
  usage.set_queued_runs(uint32_t(elsewhere.waiting));
  usage.set_open_streams(uint32_t(elsewhere.open));
  usage.set_runs_last_minute(uint32_t(elsewhere.requests));
  std::lock_guard lock(mu_);
  const auto it = usage_.find(user);
  if (it == usage_.end()) return usage;
  usage.set_queued_runs(usage.queued_runs() + it->second.waiting);
  usage.set_open_streams(usage.open_streams() + it->second.open);
  usage.set_runs_last_minute(
      usage.runs_last_minute() +
      uint32_t(std::count_if(it->second.requested_unix_ms.begin(),
                             it->second.requested_unix_ms.end(),
                             [&](int64_t ms) { return ms > now_unix_ms - kMinuteMs; })));
  return usage;
}

absl::Status QuotaGate::CheckDeviceTime(const std::string& user, double limit_seconds,
                                        int64_t window_ms, const char* per,
                                        int64_t now_unix_ms) const {
  if (limit_seconds <= 0 || !device_time_) return absl::OkStatus();
  absl::StatusOr<store::DeviceTime> used = device_time_(user, now_unix_ms - window_ms);
  if (!used.ok())
    return absl::UnavailableError(
        absl::StrCat("quota: the device time you used cannot be read from the results store (",
                     used.status().message(), "); retry"));
  if (used->seconds < limit_seconds) return absl::OkStatus();
  const int64_t reset_ms = used->oldest_end_unix_ms + window_ms - now_unix_ms;
  return OverQuota(absl::StrCat("device time ", QuotaText(limit_seconds), " s per ", per, " used (",
                                int64_t(used->seconds), " s); resets in ", WaitText(reset_ms)),
                   reset_ms);
}

absl::Status QuotaGate::CountRequest(const RunAdmission& run) {
  const uint32_t limit = QuotasOf(run.principal).runs_per_minute();
  if (limit == 0) return absl::OkStatus();
  KBENCH_ASSIGN_OR_RETURN(const store::ActivityElsewhere elsewhere,
                          Elsewhere(run.principal.user, run.unix_ms - kMinuteMs + 1));
  std::lock_guard lock(mu_);
  std::deque<int64_t>& requested = usage_[run.principal.user].requested_unix_ms;
  while (!requested.empty() && requested.front() <= run.unix_ms - kMinuteMs) requested.pop_front();
  if (requested.size() + elsewhere.requests >= limit) {
    // The oldest of this server's requests frees a place; with none here,
    // one of the others' does within the minute.
    const int64_t reset_ms =
        requested.empty() ? kMinuteMs : requested.front() + kMinuteMs - run.unix_ms;
    return OverQuota(
        absl::StrCat("runs ", limit, " per minute used (refused requests count too); resets in ",
                     WaitText(reset_ms)),
        reset_ms);
  }
  requested.push_back(run.unix_ms);
  return absl::OkStatus();
}

absl::Status QuotaGate::Admit(const RunAdmission& run) {
  const v1::QuotaLimits quotas = QuotasOf(run.principal);
  const std::string& user = run.principal.user;
  KBENCH_RETURN_IF_ERROR(
      CheckDeviceTime(user, quotas.device_seconds_per_hour(), kHourMs, "hour", run.unix_ms));
  KBENCH_RETURN_IF_ERROR(
      CheckDeviceTime(user, quotas.device_seconds_per_day(), kDayMs, "day", run.unix_ms));
  store::ActivityElsewhere elsewhere;
  if (quotas.queued_runs() > 0 || quotas.open_streams() > 0) {
    KBENCH_ASSIGN_OR_RETURN(elsewhere, Elsewhere(user, run.unix_ms));
  }
  std::lock_guard lock(mu_);
  Usage& usage = usage_[user];
  if (quotas.queued_runs() > 0 && usage.waiting + elsewhere.waiting >= quotas.queued_runs())
    return OverQuota(absl::StrCat("queued runs ", quotas.queued_runs(),
                                  " at once per learner used; resets when one of your "
                                  "waiting runs starts"));
  if (quotas.open_streams() > 0 && usage.open + elsewhere.open >= quotas.open_streams())
    return OverQuota(absl::StrCat("open run streams ", quotas.open_streams(),
                                  " at once per learner used; resets when one of your "
                                  "runs ends"));
  ++usage.waiting;
  ++usage.open;
  open_[run.run_id] = {user, false};
  return absl::OkStatus();
}

void QuotaGate::OnStarted(const std::string& run_id, const v1::DeviceInfo&) {
  std::lock_guard lock(mu_);
  const auto it = open_.find(run_id);
  if (it == open_.end() || it->second.started) return;
  it->second.started = true;
  --usage_[it->second.user].waiting;
}

void QuotaGate::OnEnded(const std::string& run_id, const absl::Status&) {
  std::lock_guard lock(mu_);
  const auto it = open_.find(run_id);
  if (it == open_.end()) return;
  Usage& usage = usage_[it->second.user];
  if (!it->second.started) --usage.waiting;
  --usage.open;
  open_.erase(it);
}

}  // namespace kbench::server
