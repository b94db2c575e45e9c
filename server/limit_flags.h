// Command-line flags for the operator's limits: one --max-* flag for every
// field of v1::Limits, named after the field (max_seq_len: --max-seq-len).
// Defaults depend on the backend, which is known only after the devices are
// opened, so flags are parsed first and resolved later.
#pragma once

#include <map>
#include <string>

#include "CLI/CLI.hpp"
#include "kbench/v1/kbench.pb.h"

namespace kbench::server {

class LimitFlags {
 public:
  // Adds the flags to app; their help shows the cpu and cuda defaults.
  void Register(CLI::App& app);
  // The backend's defaults (limits.h) with the flags given applied.
  v1::Limits Resolve(const std::string& backend) const;

 private:
  std::map<std::string, double> given_;  // field name -> value
};

}  // namespace kbench::server
