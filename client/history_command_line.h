// `kbench runs`, `kbench show` and `kbench export`: their flags and help,
// parsed into the history call to make.
#pragma once

#include <CLI/CLI.hpp>
#include <cstddef>
#include <optional>
#include <string>
#include <variant>

#include "kbench/v1/history.pb.h"

namespace kbench::client {

// `kbench runs`: the newest runs matching the filters, at most `limit`
// (0: all).
struct RunsCommand {
  v1::ListRunsRequest filters;
  size_t limit = 50;
};

// `kbench show RUN_ID`.
struct ShowCommand {
  std::string run_id;
  bool source = false;  // --source: the run's kernels' sources, not its details
};

// `kbench export`: every run matching the filters.
struct ExportCommand {
  v1::ListRunsRequest filters;
};

using HistoryCommand = std::variant<RunsCommand, ShowCommand, ExportCommand>;

// Adds runs, show and export to the app it is made with; Parsed() reads the
// one parsed. Lives as long as the parse (the flags write into it).
class HistoryCommandLine {
 public:
  explicit HistoryCommandLine(CLI::App& app);

  // The history command parsed, if one was.
  std::optional<HistoryCommand> Parsed() const;

 private:
  CLI::App* runs_ = nullptr;
  CLI::App* show_ = nullptr;
  CLI::App* export_ = nullptr;
  RunsCommand runs_command_;
  ShowCommand show_command_;
  ExportCommand export_command_;
};

}  // namespace kbench::client
