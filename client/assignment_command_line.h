// `kbench assignment create|edit|list|show|close`, `kbench submit`,
// `kbench leaderboard` and `kbench roster`: their flags and help, parsed
// into the Assignments call to make (kbench/v1/assignment.proto).
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "client/kernel_file.h"

namespace kbench::client {

// `kbench assignment create FILE` (edit: replace an existing one), with
// flags that set the file's keys (they win over the file's).
struct AssignmentSaveCommand {
  std::string file;
  bool replace = false;
  // Keys as the file spells them ("due", "title", ...) and their values.
  std::vector<std::pair<std::string, std::string>> overrides;
};
struct AssignmentListCommand {
  std::string cohort;
};
struct AssignmentShowCommand {
  std::string name;
};
struct AssignmentCloseCommand {
  std::string name;
};
// `kbench assignment rerun NAME [--top N]`.
struct AssignmentRerunCommand {
  std::string name;
  uint32_t top = 0;
};
// `kbench submit ASSIGNMENT FILE`: the kernel runs over every problem.
struct SubmitCommand {
  std::string assignment;
  KernelFlags kernel;
};
// `kbench submissions ASSIGNMENT [--user U]`.
struct SubmissionsCommand {
  std::string assignment;
  std::string user;
};
struct LeaderboardCommand {
  std::string assignment;
};
// `kbench roster [--cohort C] [--gradebook]`.
struct RosterCommand {
  std::string cohort;
  bool gradebook = false;
};

using AssignmentCommand =
    std::variant<AssignmentSaveCommand, AssignmentListCommand, AssignmentShowCommand,
                 AssignmentCloseCommand, AssignmentRerunCommand, SubmitCommand, SubmissionsCommand,
                 LeaderboardCommand, RosterCommand>;

// Adds the subcommands to the app it is made with; Parsed() reads the one
// parsed. Lives as long as the parse (the flags write into it).
class AssignmentCommandLine {
 public:
  explicit AssignmentCommandLine(CLI::App& app);

  std::optional<AssignmentCommand> Parsed() const;

 private:
  CLI::App* create_ = nullptr;
  CLI::App* edit_ = nullptr;
  CLI::App* list_ = nullptr;
  CLI::App* show_ = nullptr;
  CLI::App* close_ = nullptr;
  CLI::App* rerun_ = nullptr;
  CLI::App* submit_ = nullptr;
  CLI::App* submissions_ = nullptr;
  CLI::App* leaderboard_ = nullptr;
  CLI::App* roster_ = nullptr;
  AssignmentSaveCommand save_;
  AssignmentListCommand list_command_;
  AssignmentShowCommand show_command_;
  AssignmentCloseCommand close_command_;
  AssignmentRerunCommand rerun_command_;
  SubmitCommand submit_command_;
  std::string kernel_file_;
  SubmissionsCommand submissions_command_;
  LeaderboardCommand leaderboard_command_;
  RosterCommand roster_command_;
};

}  // namespace kbench::client
