// `kbench sweep`: its subcommands (one per op, as for runs), flags and help,
// parsed into the points of the sweep. A sweep is given either on the
// command line (`kbench sweep attention --seq 2^9..2^12 --dtype fp16,bf16`)
// or by a spec file (`kbench sweep --spec FILE`, sweep_spec_file.h).
#pragma once

#include <CLI/CLI.hpp>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "client/sweep_spec.h"
#include "kbench/v1/kbench.pb.h"

namespace kbench::client {

struct SweepCommand {
  // One request per point, in sweep order (ExpandSweep), without a label.
  std::vector<v1::RunRequest> points;
  // --label, else the spec file's label; empty: RunSweep's default.
  std::string label;
  // --out FILE; empty: stdout (unless resuming).
  std::string out_path;
  // --resume FILE: skip the points FILE holds and append the others to it.
  std::string resume_path;
};

// Adds `sweep` to the app it is made with; Parsed() reads it back after the
// app parsed. Lives as long as the parse (the flags write into it).
class SweepCommandLine {
 public:
  explicit SweepCommandLine(CLI::App& app);

  // The sweep, if `sweep` was the subcommand parsed. Throws a CLI11 error
  // (naming the flag or file) for a sweep that cannot run: neither an op nor
  // --spec, both, a spec file that cannot be read, a required field without
  // values, more than kMaxSweepPoints points, --out and --resume naming
  // different files.
  std::optional<SweepCommand> Parsed() const;

 private:
  CLI::App* sweep_ = nullptr;
  // One per op of the registry, in its order.
  std::vector<CLI::App*> op_commands_;
  std::vector<std::unique_ptr<SweepSpec>> specs_;
  std::string spec_path_;
  std::string label_;
  std::string out_path_;
  std::string resume_path_;
};

}  // namespace kbench::client
