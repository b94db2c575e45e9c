#include "client/sweep_file.h"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <vector>

#include "absl/strings/str_cat.h"
#include "client/csv_format.h"
#include "client/flag_values.h"
#include "client/json_format.h"
#include "client/problem_fields.h"
#include "kernels/common/status_macros.h"
#include "proto/ops/registry.h"

namespace kbench::client {
namespace {

absl::Status BadLine(const std::string& name, size_t line, std::string_view message) {
  return absl::InvalidArgumentError(name + ": line " + std::to_string(line) + ": " +
                                    std::string(message));
}

void AddPoint(const v1::RunRequest& point, SweepFile& file) {
  file.keys.insert(PointKey(point, /*with_variants=*/true));
  file.problem_keys.insert(PointKey(point, /*with_variants=*/false));
}

// A CSV row's point: op, dtype and the op's problem columns; the run's
// variants are added row by row.
absl::StatusOr<v1::RunRequest> CsvPoint(const std::vector<std::string>& header,
                                        const std::vector<std::string>& row) {
  auto column = [&](const std::string& name) -> const std::string& {
    static const std::string kNone;
    for (size_t i = 0; i < header.size(); ++i) {
      if (header[i] == name) return row[i];
    }
    return kNone;
  };
  const proto::ops::Op* op = proto::ops::FindOp(column("op"));
  if (op == nullptr) {
    return absl::InvalidArgumentError("op '" + column("op") + "' is not an op of this client");
  }
  v1::RunRequest point;
  for (const proto::ops::ProblemField& field : op->fields()) {
    const absl::Status status =
        SetProblemField(*op->MutableProblem(point), field, column(field.field));
    if (!status.ok()) {
      return absl::InvalidArgumentError(field.field + ": " + std::string(status.message()));
    }
  }
  const absl::StatusOr<v1::DType> dtype = ParseDType(column("dtype"));
  if (!dtype.ok()) return dtype.status();
  point.set_dtype(*dtype);
  return point;
}

absl::Status ReadCsv(std::string_view text, const std::string& name, SweepFile& file) {
  // Points by run id, in file order, each with its variants.
  std::vector<std::string> run_ids;
  std::map<std::string, v1::RunRequest> points;
  std::vector<std::string> header;
  size_t line_number = 0;
  size_t begin = 0;
  while (begin < file.valid_bytes) {
    const size_t end = text.find('\n', begin);
    const std::string_view line = text.substr(begin, end - begin);
    begin = end + 1;
    ++line_number;
    if (line_number == 1) {
      if (line != CsvHeader()) {
        return BadLine(name, 1,
                       "is not the CSV header of this kbench (its columns "
                       "differ); resume into a new file with --out instead");
      }
      header = SplitCsvLine(line);
      continue;
    }
    // `kbench --csv ... >> FILE` by a kbench before headers were left out
    // of appends repeated the header; it is no point.
    if (line == CsvHeader()) continue;
    const std::vector<std::string> row = SplitCsvLine(line);
    if (row.size() != header.size()) {
      return BadLine(name, line_number,
                     "has " + std::to_string(row.size()) +
                         " fields; the "
                         "header has " +
                         std::to_string(header.size()));
    }
    const std::string& run_id = row[0];
    auto found = points.find(run_id);
    if (found == points.end()) {
      absl::StatusOr<v1::RunRequest> point = CsvPoint(header, row);
      if (!point.ok()) {
        return BadLine(name, line_number, std::string(point.status().message()));
      }
      found = points.emplace(run_id, *std::move(point)).first;
      run_ids.push_back(run_id);
    }
    const auto variant = std::find(header.begin(), header.end(), "variant");
    found->second.add_variants(row[variant - header.begin()]);
  }
  for (const std::string& run_id : run_ids) AddPoint(points[run_id], file);
  return absl::OkStatus();
}

absl::Status ReadJsonLines(std::string_view text, const std::string& name, SweepFile& file) {
  size_t line_number = 0;
  size_t begin = 0;
  while (begin < file.valid_bytes) {
    const size_t end = text.find('\n', begin);
    const std::string_view line = text.substr(begin, end - begin);
    begin = end + 1;
    ++line_number;
    const nlohmann::json json = nlohmann::json::parse(line, nullptr, false);
    if (json.is_discarded() || !json.is_object() || !json.contains("request") ||
        !json.contains("results")) {
      return BadLine(name, line_number,
                     "is not a point as kbench --json prints it (an object "
                     "with request and results)");
    }
    v1::RunRequest point;
    if (!ParseRunRequestJson(json["request"].dump(), &point)) {
      return BadLine(name, line_number, "has a request kbench cannot read");
    }
    if (point.variants().empty()) {
      for (const nlohmann::json& result : json["results"]) {
        point.add_variants(result.value("variant", ""));
      }
    }
    file.label = point.label();
    AddPoint(point, file);
  }
  return absl::OkStatus();
}

}  // namespace

std::string PointKey(const v1::RunRequest& point, bool with_variants) {
  const proto::ops::Op* op = proto::ops::OpOf(point);
  std::string key(OpName(point));
  if (op != nullptr) {
    for (const proto::ops::ProblemField& field : op->fields()) {
      absl::StrAppend(&key, "|", field.field, "=", op->FieldText(point, field));
    }
  }
  absl::StrAppend(&key, "|", DTypeName(point.dtype()));
  if (with_variants) {
    key += "|";
    for (const std::string& variant : point.variants()) key += variant + ",";
  }
  return key;
}

bool SweepFile::Contains(const v1::RunRequest& point) const {
  return point.variants().empty() ? problem_keys.count(PointKey(point, false)) > 0
                                  : keys.count(PointKey(point, true)) > 0;
}

absl::StatusOr<SweepFile> ReadSweepFile(std::string_view text, SweepFormat format_if_empty,
                                        const std::string& name) {
  SweepFile file;
  const size_t last_newline = text.rfind('\n');
  file.valid_bytes = last_newline == std::string_view::npos ? 0 : last_newline + 1;
  file.empty = file.valid_bytes == 0;
  if (file.empty) {
    file.format = format_if_empty;
    return file;
  }
  if (text.front() == '{') {
    file.format = SweepFormat::kJsonLines;
    KBENCH_RETURN_IF_ERROR(ReadJsonLines(text, name, file));
  } else {
    file.format = SweepFormat::kCsv;
    KBENCH_RETURN_IF_ERROR(ReadCsv(text, name, file));
  }
  return file;
}

std::string FormatSweepPoint(const RunReport& report, SweepFormat format) {
  if (format == SweepFormat::kJsonLines) return FormatRunJson(report);
  std::string text;
  for (const std::vector<std::string>& row : CsvRows(report)) {
    text += CsvLine(row);
  }
  return text;
}

}  // namespace kbench::client
