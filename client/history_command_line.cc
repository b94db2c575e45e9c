#include "client/history_command_line.h"

#include <chrono>

#include "client/flag_errors.h"
#include "client/history_format.h"
#include "client/time_values.h"

namespace kbench::client {
namespace {

constexpr char kHistoryNote[] =
    "\nThe history is the server's results store. On a server with\n"
    "authentication a learner sees their own runs, an instructor their\n"
    "cohort's, an admin all (others' are PERMISSION_DENIED); a server\n"
    "without it answers its own machine only (loopback).\n"
    "\n"
    "Exit codes: 0 ok; 2 bad arguments, a filter the server refused, or an\n"
    "unknown run id; 3 server unreachable, refusing or failing; 130\n"
    "interrupted.\n";

// The filters runs and export share, each setting its field of `filters`.
void AddFilterFlags(CLI::App& command, v1::ListRunsRequest& filters) {
  command
      .add_option_function<std::string>(
          "--label", [&filters](const std::string& text) { filters.set_label(text); },
          "Runs with exactly this label, e.g. an assignment")
      ->type_name("TEXT");
  command
      .add_option_function<std::string>(
          "--op", [&filters](const std::string& text) { filters.set_op(text); },
          "Runs of this op: vector_add, attention")
      ->type_name("OP");
  command
      .add_option_function<std::string>(
          "--user", [&filters](const std::string& text) { filters.set_user(text); },
          "Runs of this user")
      ->type_name("USER");
  command
      .add_option_function<std::string>(
          "--status",
          [&filters](const std::string& text) {
            filters.set_status(ValueOrThrow(ParseRunStatus(text), "--status"));
          },
          "Runs that ended so: ok, failed_verification, refused, "
          "cancelled, error, interrupted (or queued, running)")
      ->type_name("STATUS");
  command
      .add_option_function<std::string>(
          "--since",
          [&filters](const std::string& text) {
            filters.set_since_unix_ms(ValueOrThrow(ParseTime(text, NowUnixMs()), "--since"));
          },
          "Runs accepted at or after T: 30m, 12h, 7d ago, or a local date "
          "and time, 2024-05-01 or 2024-05-01T14:30 (Z: UTC)")
      ->type_name("T");
  command
      .add_option_function<std::string>(
          "--until",
          [&filters](const std::string& text) {
            filters.set_until_unix_ms(ValueOrThrow(ParseTime(text, NowUnixMs()), "--until"));
          },
          "Runs accepted before T, written as for --since")
      ->type_name("T");
}

}  // namespace

HistoryCommandLine::HistoryCommandLine(CLI::App& app) {
  runs_ = app.add_subcommand("runs",
                             "List runs from the server's history, newest first: id, time, user, "
                             "label, problem, dtype, status, the fastest verified variant with its "
                             "median and throughput, and whether every variant verified.");
  AddFilterFlags(*runs_, runs_command_.filters);
  runs_
      ->add_option("--limit", runs_command_.limit,
                   "At most N runs, the newest (default: 50; 0: all)")
      ->type_name("N");
  runs_->footer(std::string("\nOutput: a table; --csv one line per run; --json one "
                            "RunRecord (without samples) per line.\n"
                            "\nExamples:\n"
                            "  kbench runs\n"
                            "  kbench runs --label lab3 --status failed_verification\n"
                            "  kbench runs --op attention --since 7d --limit 200 --csv\n") +
                kHistoryNote);

  show_ = app.add_subcommand("show",
                             "Show everything stored of one run: who and when, the request, the "
                             "device and its ceilings, each variant's statistics, throughput, "
                             "verification and speedup, and its samples summarised.");
  show_
      ->add_option("RUN_ID", show_command_.run_id,
                   "The run's id, as kbench runs and every run print it")
      ->required();
  show_->add_flag("--source", show_command_.source,
                  "Print the source of each of the run's own kernels (--kernel) instead, "
                  "each after a comment line naming it; to its owner, their instructor "
                  "and admins (to others the run does not exist)");
  show_->footer(std::string("\nOutput: text; --json the RunRecord with every "
                            "sample; --csv one row per variant.\n"
                            "\nExamples:\n"
                            "  kbench show 4f1c2a\n"
                            "  kbench show 4f1c2a --source > my_kernels.cu\n"
                            "  kbench --json show 4f1c2a > run.json\n") +
                kHistoryNote);

  export_ = app.add_subcommand("export",
                               "Export every run matching the filters, streamed: CSV with one row "
                               "per variant per run (the run's fields first), or with --json one "
                               "RunRecord per line, samples included.");
  AddFilterFlags(*export_, export_command_.filters);
  export_->footer(std::string("\nOutput: CSV (the default, or --csv) with the columns of "
                              "'kbench --csv' after the run's accepted time, user, peer, "
                              "label, status, error and device; a run without results "
                              "(refused, failed) has one row with empty variant "
                              "columns. --json: one RunRecord per line.\n"
                              "\nExamples:\n"
                              "  kbench export --label lab3 --csv > cohort.csv\n"
                              "  kbench export --op attention --since 2024-05-01 --json "
                              "> runs.jsonl\n") +
                  kHistoryNote);
}

std::optional<HistoryCommand> HistoryCommandLine::Parsed() const {
  if (runs_->parsed()) return runs_command_;
  if (show_->parsed()) return show_command_;
  if (export_->parsed()) return export_command_;
  return std::nullopt;
}

}  // namespace kbench::client
