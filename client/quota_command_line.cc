#include "client/quota_command_line.h"

namespace kbench::client {
namespace {

constexpr char kQuotaNote[] =
    "\nQuotas hold each learner of a cohort: runs waiting and streams open at\n"
    "once, runs per minute, device seconds per hour and per day (0: no\n"
    "limit). A cohort has the server's defaults (kbench-server --quota-*)\n"
    "except where its instructor or an admin set its own.\n"
    "\n"
    "Exit codes: 0 ok; 2 bad arguments or values the server refused; 3\n"
    "server unreachable, refusing (not the cohort's instructor) or failing;\n"
    "130 interrupted.\n";

}  // namespace

QuotaCommandLine::QuotaCommandLine(CLI::App& app) {
  CLI::App* quota =
      app.add_subcommand("quota", "Show your quotas and usage, or show and set a cohort's quotas.");
  quota->require_subcommand(1);

  show_ = quota->add_subcommand("show",
                                "Show your own quotas and what you use of them; with --cohort, a "
                                "cohort's quotas (its instructor or an admin).");
  show_
      ->add_option_function<std::string>(
          "--cohort",
          [this](const std::string& cohort) { show_command_.request.set_cohort(cohort); },
          "The cohort to show")
      ->type_name("COHORT");
  show_->footer(std::string("\nExamples:\n"
                            "  kbench quota show\n"
                            "  kbench quota show --cohort cohort-1 --json\n") +
                kQuotaNote);

  set_ = quota->add_subcommand("set",
                               "Set some of a cohort's quotas (its instructor or an admin); the "
                               "others keep their value.");
  v1::SetCohortQuotasRequest& request = set_command_.request;
  set_->add_option_function<std::string>(
          "--cohort", [&request](const std::string& cohort) { request.set_cohort(cohort); },
          "The cohort whose quotas to set")
      ->type_name("COHORT")
      ->required();
  v1::QuotaOverrides& o = *request.mutable_overrides();
  set_->add_option_function<uint32_t>(
          "--queued-runs", [&o](uint32_t v) { o.set_queued_runs(v); },
          "Runs of one learner waiting at once")
      ->type_name("N");
  set_->add_option_function<uint32_t>(
          "--open-streams", [&o](uint32_t v) { o.set_open_streams(v); },
          "Run streams of one learner open at once")
      ->type_name("N");
  set_->add_option_function<double>(
          "--device-seconds-per-hour", [&o](double v) { o.set_device_seconds_per_hour(v); },
          "Device seconds of one learner per hour")
      ->type_name("SECONDS");
  set_->add_option_function<double>(
          "--device-seconds-per-day", [&o](double v) { o.set_device_seconds_per_day(v); },
          "Device seconds of one learner per 24 hours")
      ->type_name("SECONDS");
  set_->add_option_function<uint32_t>(
          "--runs-per-minute", [&o](uint32_t v) { o.set_runs_per_minute(v); },
          "Runs one learner may submit per minute")
      ->type_name("N");
  set_->footer(std::string("\nExamples:\n"
                           "  kbench quota set --cohort cohort-1 --queued-runs 2 "
                           "--device-seconds-per-hour 600\n") +
               kQuotaNote);
}

std::optional<QuotaCommand> QuotaCommandLine::Parsed() const {
  if (show_->parsed()) return show_command_;
  if (!set_->parsed()) return std::nullopt;
  if (set_command_.request.overrides().ByteSizeLong() == 0)
    throw CLI::ValidationError(
        "quota set",
        "give at least one of --queued-runs, --open-streams, "
        "--device-seconds-per-hour, --device-seconds-per-day, --runs-per-minute");
  return set_command_;
}

}  // namespace kbench::client
