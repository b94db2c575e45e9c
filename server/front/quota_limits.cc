#include "server/front/quota_limits.h"

#include <cmath>
#include <string>

#include "absl/strings/str_cat.h"
#include "kernels/common/status_macros.h"

namespace kbench::server {

std::string QuotaText(double value) {
  if (value == std::floor(value) && std::fabs(value) < 1e15)
    return absl::StrCat(static_cast<int64_t>(value));
  return absl::StrCat(value);
}

namespace {

absl::Status CheckValue(const std::string& field, double value, double max) {
  if (std::isfinite(value) && value >= 0 && value <= max) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat("overrides.", field, " must be between 0 and ",
                                                 QuotaText(max), ", got ", QuotaText(value)));
}

}  // namespace

v1::QuotaLimits DefaultQuotas() {
  v1::QuotaLimits quotas;
  quotas.set_queued_runs(4);
  quotas.set_open_streams(8);
  quotas.set_device_seconds_per_hour(900);
  quotas.set_device_seconds_per_day(3600);
  quotas.set_runs_per_minute(30);
  return quotas;
}

v1::QuotaLimits MaxQuotas() {
  v1::QuotaLimits quotas;
  quotas.set_queued_runs(10000);
  quotas.set_open_streams(10000);
  // A server of up to 64 devices, each busy the whole window.
  quotas.set_device_seconds_per_hour(64 * 3600);
  quotas.set_device_seconds_per_day(64 * 24 * 3600);
  quotas.set_runs_per_minute(6000);
  return quotas;
}

absl::Status CheckOverrides(const v1::QuotaOverrides& o) {
  const v1::QuotaLimits max = MaxQuotas();
  if (o.has_queued_runs())
    KBENCH_RETURN_IF_ERROR(CheckValue("queued_runs", o.queued_runs(), max.queued_runs()));
  if (o.has_open_streams())
    KBENCH_RETURN_IF_ERROR(CheckValue("open_streams", o.open_streams(), max.open_streams()));
  if (o.has_device_seconds_per_hour())
    KBENCH_RETURN_IF_ERROR(CheckValue("device_seconds_per_hour", o.device_seconds_per_hour(),
                                      max.device_seconds_per_hour()));
  if (o.has_device_seconds_per_day())
    KBENCH_RETURN_IF_ERROR(CheckValue("device_seconds_per_day", o.device_seconds_per_day(),
                                      max.device_seconds_per_day()));
  if (o.has_runs_per_minute())
    KBENCH_RETURN_IF_ERROR(
        CheckValue("runs_per_minute", o.runs_per_minute(), max.runs_per_minute()));
  return absl::OkStatus();
}

}  // namespace kbench::server
