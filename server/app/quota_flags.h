// The server flags that set the per-learner quotas' defaults
// (quota_limits.h): one --quota-* flag for every field of v1::QuotaLimits,
// named after the field (queued_runs: --quota-queued-runs). 0 turns a
// quota off.
#pragma once

#include <map>
#include <string>

#include "CLI/CLI.hpp"
#include "kbench/v1/quota.pb.h"

namespace kbench::server {

class QuotaFlags {
 public:
  // Adds the flags to app; their help shows the defaults.
  void Register(CLI::App& app);
  // DefaultQuotas() with the flags given applied.
  v1::QuotaLimits Resolve() const;

 private:
  std::map<std::string, double> given_;  // field name -> value
};

}  // namespace kbench::server
