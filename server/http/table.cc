#include "server/http/table.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "proto/text/csv_field.h"

namespace kbench::server::http {
namespace {

nlohmann::json CellJson(const Cell& cell) {
  return std::visit(
      [](const auto& value) -> nlohmann::json {
        using T = std::decay_t<decltype(value)>;
        if constexpr (std::is_same_v<T, std::monostate>) {
          return nullptr;
        } else if constexpr (std::is_same_v<T, double>) {
          // JSON has no NaN or infinity.
          return std::isfinite(value) ? nlohmann::json(value) : nlohmann::json(nullptr);
        } else {
          return value;
        }
      },
      cell);
}

std::string CellCsv(const Cell& cell) {
  return std::visit(
      [](const auto& value) -> std::string {
        using T = std::decay_t<decltype(value)>;
        if constexpr (std::is_same_v<T, std::monostate>) {
          return "";
        } else if constexpr (std::is_same_v<T, std::string>) {
          return proto::text::CsvField(value);
        } else if constexpr (std::is_same_v<T, double>) {
          return absl::StrFormat("%.9g", value);
        } else if constexpr (std::is_same_v<T, bool>) {
          return value ? "true" : "false";
        } else {
          return absl::StrCat(value);
        }
      },
      cell);
}

}  // namespace

nlohmann::json ToJson(const Table& table) {
  nlohmann::json rows = nlohmann::json::array();
  for (const std::vector<Cell>& row : table.rows) {
    nlohmann::json object = nlohmann::json::object();
    for (size_t i = 0; i < table.columns.size() && i < row.size(); ++i) {
      object[table.columns[i]] = CellJson(row[i]);
    }
    rows.push_back(std::move(object));
  }
  return {{"columns", table.columns}, {"rows", std::move(rows)}, {"truncated", table.truncated}};
}

std::string ToCsv(const Table& table) {
  std::string csv = absl::StrCat(absl::StrJoin(table.columns, ",",
                                               [](std::string* out, const std::string& name) {
                                                 out->append(proto::text::CsvField(name));
                                               }),
                                 "\r\n");
  for (const std::vector<Cell>& row : table.rows) {
    absl::StrAppend(
        &csv,
        absl::StrJoin(row, ",",
                      [](std::string* out, const Cell& cell) { out->append(CellCsv(cell)); }),
        "\r\n");
  }
  return csv;
}

}  // namespace kbench::server::http
