// The kbench command line: subcommands, flags and --help text, parsed with
// CLI11 into the request to send. There is one run subcommand per op of the
// registry (proto/ops/registry.h), named for the op with '-' for '_'
// (vector-add, attention), whose flags are the op's problem fields; `info`;
// the history commands (runs, show, export: history_command_line.h);
// `sweep` (sweep_command_line.h); login, invite, whoami
// (auth_command_line.h); and `compile` (compile_command_line.h).
#pragma once

#include <ostream>
#include <string>
#include <variant>

#include "client/assignment_command_line.h"
#include "client/auth_command_line.h"
#include "client/compile_command_line.h"
#include "client/exit_codes.h"
#include "client/history_command_line.h"
#include "client/quota_command_line.h"
#include "client/sweep_command_line.h"
#include "kbench/v1/kbench.pb.h"

namespace kbench::client {

enum class OutputFormat { kTable, kJson, kCsv };

// Options that apply to every subcommand; they may come before or after it.
struct GlobalOptions {
  std::string server;  // --server, else $KBENCH_SERVER, else localhost:50051
  double timeout_s = 600;
  OutputFormat format = OutputFormat::kTable;
  bool quiet = false;
  // CSV on stdout starts with its header (false: --no-header); it is left
  // out anyway when stdout appends to a file with content (>> runs.csv).
  bool csv_header = true;
  bool tls = false;             // --tls
  std::string ca_file;          // --ca FILE
  bool insecure_token = false;  // --insecure-token
};

// `kbench info`.
struct InfoCommand {};

struct CommandLine {
  GlobalOptions options;
  // A run subcommand's request, its problem set (the oneof names the op);
  // info; a history command; a sweep; a quota command; login, invite,
  // whoami; compile; or an assignment command (assignment, submit,
  // submissions, leaderboard, roster).
  std::variant<v1::RunRequest, InfoCommand, HistoryCommand, SweepCommand, QuotaCommand, AuthCommand,
               CompileCommand, AssignmentCommand>
      command;
};

// Parses argv (argv[0] is the program). Returns the command to carry out, or
// the exit code to end with: kOk after --help was written to `out`,
// kBadArguments after a parse error was written to `err`. Reads
// KBENCH_SERVER from the environment. Problem fields left unset take the
// op's default (ProblemField::default_value); other flags left unset send 0
// (the server's default).
std::variant<CommandLine, ExitCode> ParseCommandLine(int argc, const char* const* argv,
                                                     std::ostream& out, std::ostream& err);

}  // namespace kbench::client
