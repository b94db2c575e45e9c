// The quotas' numbers in one place: every learner's defaults (which the
// --quota-* flags override), the largest value any quota may be set to
// (by flag or by SetCohortQuotas), and the check of a cohort's overrides.
#pragma once

#include <string>

#include "absl/status/status.h"
#include "kbench/v1/quota.pb.h"

namespace kbench::server {

// Every learner's quotas unless a flag or their cohort says otherwise.
v1::QuotaLimits DefaultQuotas();

// The largest value of each quota.
v1::QuotaLimits MaxQuotas();

// A quota's value as messages show it: whole numbers without a fraction or
// exponent ("5529600"), others as they are ("0.5").
std::string QuotaText(double value);

// INVALID_ARGUMENT naming the field and the limit for a value set in
// `overrides` that is negative, not a number or over MaxQuotas().
absl::Status CheckOverrides(const v1::QuotaOverrides& overrides);

}  // namespace kbench::server
