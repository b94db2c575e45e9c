// `kbench-server probe ADDRESS [--service NAME] [--timeout-s S]`: asks the
// gRPC health service at ADDRESS (plain text: the --health-listen port) and
// exits 0 when it answers SERVING, 1 otherwise (the reason on stderr). For
// container HEALTHCHECKs and scripts, which have no gRPC client of their
// own. The service "" is the server as a whole (SERVING while it serves and
// is not draining: liveness); kbench.v1.KernelBench is SERVING while some
// worker is ready (readiness).
#pragma once

#include <ostream>
#include <string>

#include "CLI/CLI.hpp"

namespace kbench::server {

class ProbeCommandLine {
 public:
  // Adds `probe` to `app`; lives as long as the parse.
  explicit ProbeCommandLine(CLI::App& app);

  bool parsed() const { return probe_->parsed(); }

  // Asks the health service; "SERVING" or the reason to `out`/`err`.
  // Returns the exit code.
  int Run(std::ostream& out, std::ostream& err) const;

 private:
  CLI::App* probe_ = nullptr;
  std::string address_;
  std::string service_;
  double timeout_s_ = 5;
};

}  // namespace kbench::server
