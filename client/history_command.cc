#include "client/history_command.h"

#include <iostream>
#include <vector>

#include "client/csv_format.h"
#include "client/history_calls.h"
#include "client/history_format.h"
#include "client/run_details_format.h"

namespace kbench::client {
namespace {

ExitCode Failure(const CallResult& result, const GlobalOptions& options,
                 const InterruptWatcher& watcher, std::string_view run_id = "") {
  if (watcher.interrupted()) {
    std::cerr << "kbench: interrupted" << std::endl;
    return ExitCode::kInterrupted;
  }
  std::cerr << DescribeHistoryFailure(result.status, options.server, options.timeout_s,
                                      result.stage, run_id)
            << std::endl;
  return ExitCodeForHistoryStatus(result.status.error_code());
}

ExitCode Runs(const GlobalOptions& options, const CallOptions& call, InterruptWatcher& watcher,
              const RunsCommand& command) {
  std::vector<v1::RunRecord> runs;
  const CallResult result = ListRuns(call, watcher, command.filters, command.limit, runs);
  if (!result.status.ok()) return Failure(result, options, watcher);
  switch (options.format) {
    case OutputFormat::kTable:
      std::cout << FormatRunsTable(runs);
      break;
    case OutputFormat::kCsv:
      std::cout << FormatRunsCsv(runs);
      break;
    case OutputFormat::kJson:
      for (const v1::RunRecord& run : runs) {
        std::cout << FormatRunRecordJson(run);
      }
      break;
  }
  std::cout << std::flush;
  return ExitCode::kOk;
}

ExitCode Show(const GlobalOptions& options, const CallOptions& call, InterruptWatcher& watcher,
              const ShowCommand& command) {
  v1::RunRecord run;
  const CallResult result = GetRun(call, watcher, command.run_id, run);
  if (!result.status.ok()) {
    return Failure(result, options, watcher, command.run_id);
  }
  if (command.source) {
    std::cout << FormatRunSources(run) << std::flush;
    return ExitCode::kOk;
  }
  switch (options.format) {
    case OutputFormat::kTable:
      std::cout << FormatRunDetails(run);
      break;
    case OutputFormat::kCsv:
      std::cout << FormatCsv(ReportOf(run), StdoutCsvHeader(options.csv_header));
      break;
    case OutputFormat::kJson:
      std::cout << FormatRunRecordJson(run);
      break;
  }
  std::cout << std::flush;
  return ExitCode::kOk;
}

ExitCode Export(const GlobalOptions& options, const CallOptions& call, InterruptWatcher& watcher,
                const ExportCommand& command) {
  const bool json = options.format == OutputFormat::kJson;
  if (!json && StdoutCsvHeader(options.csv_header) == CsvHeaderLine::kWith)
    std::cout << ExportCsvHeader() << "\n";
  const CallResult result =
      ExportRuns(call, watcher, command.filters, [json](const v1::RunRecord& run) {
        std::cout << (json ? FormatRunRecordJson(run) : FormatExportCsvRows(run)) << std::flush;
      });
  if (!result.status.ok()) return Failure(result, options, watcher);
  return ExitCode::kOk;
}

}  // namespace

ExitCode RunHistoryCommand(const GlobalOptions& options, const CallOptions& call,
                           InterruptWatcher& watcher, const HistoryCommand& command) {
  if (const auto* runs = std::get_if<RunsCommand>(&command)) {
    return Runs(options, call, watcher, *runs);
  }
  if (const auto* show = std::get_if<ShowCommand>(&command)) {
    return Show(options, call, watcher, *show);
  }
  return Export(options, call, watcher, std::get<ExportCommand>(command));
}

}  // namespace kbench::client
