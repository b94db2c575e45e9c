#include "client/csv_format.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "client/flag_values.h"
#include "client/result_text.h"
#include "proto/ops/registry.h"
#include "proto/text/csv_field.h"

namespace kbench::client {
namespace {

std::string Number(double value) {
  char text[64];
  std::snprintf(text, sizeof(text), "%.9g", value);
  return text;
}

std::string Bool(bool value) { return value ? "true" : "false"; }

// The problem columns: every op's problem fields in registry order, each
// name once.
std::vector<std::string> ProblemColumns() {
  std::vector<std::string> columns;
  for (const proto::ops::Op* op : proto::ops::AllOps()) {
    for (const proto::ops::ProblemField& field : op->fields()) {
      if (std::find(columns.begin(), columns.end(), field.field) == columns.end()) {
        columns.push_back(field.field);
      }
    }
  }
  return columns;
}

}  // namespace

std::vector<std::string> CsvRunColumns() {
  std::vector<std::string> columns = {"run_id", "op", "dtype"};
  for (const std::string& column : ProblemColumns()) columns.push_back(column);
  return columns;
}

std::vector<std::string> CsvRunFields(const RunReport& report) {
  std::vector<std::string> fields = {report.run_id, std::string(OpName(report.request)),
                                     DTypeName(report.request.dtype())};
  const proto::ops::Op* op = proto::ops::OpOf(report.request);
  for (const std::string& column : ProblemColumns()) {
    std::string value;
    if (op != nullptr) {
      for (const proto::ops::ProblemField& field : op->fields()) {
        if (field.field == column) value = op->FieldText(report.request, field);
      }
    }
    fields.push_back(std::move(value));
  }
  return fields;
}

std::string CsvHeader() {
  std::string header = "run_id,op,dtype,";
  for (const std::string& column : ProblemColumns()) header += column + ",";
  return header +
         "variant,samples,median_ms,p10_ms,p90_ms,mean_ms,std_ms,"
         "median_ci_low_ms,median_ci_high_ms,throughput,throughput_unit,"
         "fraction_of_ceiling,max_abs_error,rel_l2_error,verified,speedup,"
         "speedup_ci_low,speedup_ci_high,verdict,stop_reason,"
         "median_ci_confidence,speedup_min_effect,speedup_ci_confidence,speedup_rounds";
}

std::string CsvLine(const std::vector<std::string>& fields) {
  std::string line;
  for (size_t i = 0; i < fields.size(); ++i) {
    if (i > 0) line += ',';
    line += proto::text::CsvField(fields[i]);
  }
  return line + "\n";
}

std::vector<std::string> SplitCsvLine(std::string_view line) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c != '"') {
        fields.back() += c;
      } else if (i + 1 < line.size() && line[i + 1] == '"') {
        fields.back() += '"';
        ++i;
      } else {
        quoted = false;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields.emplace_back();
    } else {
      fields.back() += c;
    }
  }
  return fields;
}

std::string FormatCsv(const RunReport& report, CsvHeaderLine header) {
  std::string text = header == CsvHeaderLine::kWith ? CsvHeader() + "\n" : "";
  for (const std::vector<std::string>& row : CsvRows(report)) {
    text += CsvLine(row);
  }
  return text;
}

std::vector<std::vector<std::string>> CsvRows(const RunReport& report) {
  std::vector<std::vector<std::string>> rows;
  const std::vector<std::string> run_fields = CsvRunFields(report);
  for (const v1::VariantResult& result : report.results) {
    const v1::Statistics& s = result.stats();
    const v1::Throughput& t = result.throughput();
    const v1::Verification& v = result.verification();
    std::vector<std::string> fields = run_fields;
    fields.insert(fields.end(),
                  {result.variant(), std::to_string(s.samples()), Number(s.median_ms()),
                   Number(s.p10_ms()), Number(s.p90_ms()), Number(s.mean_ms()), Number(s.std_ms()),
                   Number(s.median_ci_low_ms()), Number(s.median_ci_high_ms()), Number(t.value()),
                   t.unit(), Number(t.fraction_of_ceiling()), Number(v.max_abs_error()),
                   Number(v.rel_l2_error()), Bool(v.passed())});
    const v1::Speedup* speedup = FindSpeedup(report, result.variant());
    if (speedup != nullptr) {
      fields.insert(fields.end(),
                    {Number(speedup->speedup()), Number(speedup->ci_low()),
                     Number(speedup->ci_high()), std::string(VerdictText(speedup->verdict()))});
    } else {
      fields.insert(fields.end(), {"", "", "", ""});
    }
    fields.emplace_back(StopReasonText(s.stop_reason()));
    fields.push_back(Number(s.median_ci_confidence()));
    fields.push_back(speedup != nullptr ? Number(speedup->min_effect()) : "");
    fields.push_back(speedup != nullptr ? Number(speedup->ci_confidence()) : "");
    fields.push_back(speedup != nullptr ? std::to_string(speedup->rounds()) : "");
    rows.push_back(std::move(fields));
  }
  return rows;
}

bool WritesAfterExistingContent(int fd) {
  struct stat info;
  if (fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) return false;
  // O_APPEND writes go to the end whatever the offset says.
  const int flags = fcntl(fd, F_GETFL);
  if (flags != -1 && (flags & O_APPEND) != 0) return info.st_size > 0;
  const off_t at = lseek(fd, 0, SEEK_CUR);
  return at > 0;
}

CsvHeaderLine StdoutCsvHeader(bool wanted) {
  return wanted && !WritesAfterExistingContent(STDOUT_FILENO) ? CsvHeaderLine::kWith
                                                              : CsvHeaderLine::kWithout;
}

}  // namespace kbench::client
