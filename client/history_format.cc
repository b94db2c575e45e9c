#include "client/history_format.h"

#include <algorithm>
#include <cctype>

#include "client/csv_format.h"
#include "client/flag_values.h"
#include "client/json_format.h"
#include "client/result_text.h"
#include "client/terminal_text.h"
#include "client/time_values.h"

namespace kbench::client {
namespace {

using Row = std::vector<std::string>;

std::string Who(const v1::RunRecord& run) { return run.user().empty() ? run.peer() : run.user(); }

std::string Verified(const v1::RunRecord& run) {
  if (run.results().empty()) return "-";
  return AllVerified(ReportOf(run)) ? "yes" : "NO";
}

std::string Shape(const v1::RunRecord& run) {
  return run.request().problem_case() == v1::RunRequest::PROBLEM_NOT_SET
             ? (run.op().empty() ? "-" : run.op())
             : DescribeShape(run.request());
}

}  // namespace

std::string RunStatusName(v1::RunStatus status) {
  if (status == v1::RUN_STATUS_UNSPECIFIED) return "-";
  std::string name = v1::RunStatus_Name(status);
  name.erase(0, std::string_view("RUN_STATUS_").size());
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  return name;
}

absl::StatusOr<v1::RunStatus> ParseRunStatus(std::string_view text) {
  std::string name(text);
  std::replace(name.begin(), name.end(), '-', '_');
  std::string names;
  for (int i = v1::RunStatus_MIN + 1; i <= v1::RunStatus_MAX; ++i) {
    if (!v1::RunStatus_IsValid(i)) continue;
    const auto status = static_cast<v1::RunStatus>(i);
    if (RunStatusName(status) == name) return status;
    names += (names.empty() ? "" : ", ") + RunStatusName(status);
  }
  return BadValue(text, "is not a run status; use " + names);
}

RunReport ReportOf(const v1::RunRecord& run) {
  RunReport report;
  report.request = run.request();
  report.run_id = run.run_id();
  if (run.has_started()) report.started = run.started();
  report.results.assign(run.results().begin(), run.results().end());
  if (run.has_summary()) report.summary = run.summary();
  return report;
}

std::string FormatRunsTable(const std::vector<v1::RunRecord>& runs) {
  if (runs.empty()) return "no runs\n";
  std::vector<Row> rows = {{"run", "accepted", "user", "label", "problem", "dtype", "status",
                            "best", "median ms", "throughput", "verified"}};
  for (const v1::RunRecord& run : runs) {
    const RunReport report = ReportOf(run);
    const v1::VariantResult* best = BestVerified(report);
    rows.push_back({run.run_id(), FormatLocalTime(run.accepted_unix_ms()), Who(run),
                    run.label().empty() ? "-" : run.label(), Shape(run),
                    DTypeName(run.request().dtype()), RunStatusName(run.status()),
                    best ? best->variant() : "-",
                    best ? FormatMeasured(best->stats().median_ms()) : "-",
                    best ? FormatThroughput(best->throughput()) : "-", Verified(run)});
  }
  // Why runs without results ended so (refused, error, cancelled,
  // interrupted): the table has no room for it.
  std::string why;
  for (const v1::RunRecord& run : runs)
    if (!run.error().empty())
      why += Printable(run.run_id()) + " " + RunStatusName(run.status()) + ": " +
             Printable(run.error()) + "\n";
  return FormatColumns(rows) + why;
}

std::string FormatRunsCsv(const std::vector<v1::RunRecord>& runs) {
  std::vector<std::string> header = CsvRunColumns();
  const std::vector<std::string> extra = {"accepted_unix_ms",
                                          "accepted",
                                          "user",
                                          "peer",
                                          "label",
                                          "status",
                                          "best_variant",
                                          "best_median_ms",
                                          "best_throughput",
                                          "throughput_unit",
                                          "verified",
                                          "error"};
  header.insert(header.end(), extra.begin(), extra.end());
  std::string text = CsvLine(header);
  for (const v1::RunRecord& run : runs) {
    const RunReport report = ReportOf(run);
    const v1::VariantResult* best = BestVerified(report);
    std::vector<std::string> fields = CsvRunFields(report);
    fields.insert(
        fields.end(),
        {std::to_string(run.accepted_unix_ms()), FormatLocalTime(run.accepted_unix_ms()),
         run.user(), run.peer(), run.label(), RunStatusName(run.status()),
         best ? best->variant() : "", best ? FormatSignificant(best->stats().median_ms(), 9) : "",
         best ? FormatSignificant(best->throughput().value(), 9) : "",
         best ? best->throughput().unit() : "",
         run.results().empty() ? "" : (Verified(run) == "yes" ? "true" : "false"), run.error()});
    text += CsvLine(fields);
  }
  return text;
}

std::string FormatRunRecordJson(const v1::RunRecord& run) { return FormatMessageJson(run); }

std::string ExportCsvHeader() {
  return "accepted_unix_ms,accepted,user,peer,label,status,error,backend,"
         "device," +
         CsvHeader();
}

std::string FormatExportCsvRows(const v1::RunRecord& run) {
  const std::vector<std::string> run_fields = {std::to_string(run.accepted_unix_ms()),
                                               FormatLocalTime(run.accepted_unix_ms()),
                                               run.user(),
                                               run.peer(),
                                               run.label(),
                                               RunStatusName(run.status()),
                                               run.error(),
                                               run.device().backend(),
                                               run.device().name()};
  const RunReport report = ReportOf(run);
  std::vector<std::vector<std::string>> rows = CsvRows(report);
  if (rows.empty()) {
    rows.push_back(CsvRunFields(report));
    rows.back().resize(SplitCsvLine(CsvHeader()).size());
  }
  std::string text;
  for (std::vector<std::string>& row : rows) {
    row.insert(row.begin(), run_fields.begin(), run_fields.end());
    text += CsvLine(row);
  }
  return text;
}

}  // namespace kbench::client
