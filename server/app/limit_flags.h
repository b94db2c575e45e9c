// Command-line flags for the operator's limits: one --max-* flag for every
// field of v1::Limits, named after the field (max_seq_len: --max-seq-len).
// Defaults depend on the device (limits.h), which is known only after the
// workers have opened it, so flags are parsed first and resolved later.
#pragma once

#include <map>
#include <string>

#include "CLI/CLI.hpp"
#include "kbench/v1/kbench.pb.h"

namespace kbench::server {

class LimitFlags {
 public:
  // Adds the flags to app; their help shows the defaults of a CPU and of a
  // GPU.
  void Register(CLI::App& app);
  // The device's defaults (limits.h) with the flags given applied.
  v1::Limits Resolve(const v1::DeviceInfo& device) const;

 private:
  std::map<std::string, double> given_;  // field name -> value
};

}  // namespace kbench::server
