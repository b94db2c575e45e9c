#include "client/cli.h"

#include <unistd.h>

#include <iostream>
#include <optional>

#include "client/assignment_command.h"
#include "client/auth_command.h"
#include "client/call_failure.h"
#include "client/command_line.h"
#include "client/compile_command.h"
#include "client/credentials.h"
#include "client/csv_format.h"
#include "client/exit_codes.h"
#include "client/history_command.h"
#include "client/json_format.h"
#include "client/progress_reporter.h"
#include "client/quota_command.h"
#include "client/run_report.h"
#include "client/server_calls.h"
#include "client/server_info_format.h"
#include "client/sweep_command.h"
#include "client/table_format.h"

namespace kbench::client {
namespace {

ExitCode RunBenchmarkCommand(const GlobalOptions& options, const CallOptions& call,
                             InterruptWatcher& watcher, const v1::RunRequest& request) {
  RunReport report;
  report.request = request;
  std::optional<ProgressReporter> progress;
  if (!options.quiet) progress.emplace(std::cerr, isatty(STDERR_FILENO) == 1);
  const CallResult result = RunBenchmark(call, request, watcher, [&](const v1::RunEvent& event) {
    RecordEvent(event, report);
    if (progress) progress->OnEvent(event);
  });
  if (progress) progress->Finish();
  if (!result.status.ok()) return ReportFailure(result, options, watcher);
  if (!report.summary) {
    std::cerr << "kbench: the server at " << options.server << " ended the run without a summary"
              << std::endl;
    return ExitCode::kServerError;
  }
  switch (options.format) {
    case OutputFormat::kTable:
      std::cout << FormatTable(report) << std::flush;
      break;
    case OutputFormat::kJson:
      std::cout << FormatRunJson(report) << std::flush;
      break;
    case OutputFormat::kCsv:
      std::cout << FormatCsv(report, StdoutCsvHeader(options.csv_header)) << std::flush;
      break;
  }
  if (!AllVerified(report)) {
    std::cerr << "kbench: a variant failed verification" << std::endl;
    return ExitCode::kVerificationFailed;
  }
  return ExitCode::kOk;
}

ExitCode RunInfoCommand(const GlobalOptions& options, const CallOptions& call,
                        InterruptWatcher& watcher) {
  if (options.format == OutputFormat::kCsv) {
    std::cerr << "kbench: --csv does not apply to info; use --json or neither" << std::endl;
    return ExitCode::kBadArguments;
  }
  v1::ServerInfo info;
  const CallResult result = FetchServerInfo(call, watcher, info);
  if (!result.status.ok()) return ReportFailure(result, options, watcher);
  std::cout << (options.format == OutputFormat::kJson ? FormatServerInfoJson(info)
                                                      : FormatServerInfo(info))
            << std::flush;
  return ExitCode::kOk;
}

}  // namespace

int RunCli(int argc, const char* const* argv, InterruptWatcher& watcher) {
  const std::variant<CommandLine, ExitCode> parsed =
      ParseCommandLine(argc, argv, std::cout, std::cerr);
  if (const auto* code = std::get_if<ExitCode>(&parsed)) {
    return static_cast<int>(*code);
  }
  const CommandLine& line = std::get<CommandLine>(parsed);
  CallOptions call;
  call.server = line.options.server;
  call.timeout = std::chrono::duration<double>(line.options.timeout_s);
  call.tls = line.options.tls;
  call.ca_file = line.options.ca_file;
  call.insecure_token = line.options.insecure_token;
  absl::StatusOr<std::string> token = LoadToken();
  if (!token.ok()) {
    std::cerr << "kbench: " << token.status().message() << std::endl;
    return static_cast<int>(ExitCode::kBadArguments);
  }
  call.token = *std::move(token);
  const auto* auth = std::get_if<AuthCommand>(&line.command);
  const bool login = auth != nullptr && std::holds_alternative<LoginCommand>(*auth);
  if (absl::Status transport = CheckTransport(call, login); !transport.ok()) {
    std::cerr << "kbench: " << transport.message() << std::endl;
    return static_cast<int>(ExitCode::kBadArguments);
  }
  ExitCode code = ExitCode::kOk;
  if (const auto* request = std::get_if<v1::RunRequest>(&line.command)) {
    code = RunBenchmarkCommand(line.options, call, watcher, *request);
  } else if (const auto* history = std::get_if<HistoryCommand>(&line.command)) {
    code = RunHistoryCommand(line.options, call, watcher, *history);
  } else if (auth != nullptr) {
    code = RunAuthCommand(line.options, call, watcher, *auth);
  } else if (const auto* sweep = std::get_if<SweepCommand>(&line.command)) {
    code = RunSweep(line.options, call, watcher, *sweep);
  } else if (const auto* compile = std::get_if<CompileCommand>(&line.command)) {
    code = RunCompileCommand(line.options, call, watcher, *compile);
  } else if (const auto* quota = std::get_if<QuotaCommand>(&line.command)) {
    code = RunQuotaCommand(line.options, call, watcher, *quota);
  } else if (const auto* assignment = std::get_if<AssignmentCommand>(&line.command)) {
    code = RunAssignmentCommand(line.options, call, watcher, *assignment);
  } else {
    code = RunInfoCommand(line.options, call, watcher);
  }
  return static_cast<int>(code);
}

}  // namespace kbench::client
