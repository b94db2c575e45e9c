// Table: the one shape of every table the dashboard's API serves, rendered
// as JSON for the page and scripts, or as CSV for download, so that a
// table's JSON and CSV always hold the same columns and rows.
//
// JSON: {"columns": ["a", "b"], "rows": [{"a": 1, "b": "x"}, ...],
//        "truncated": false}
// (a null cell is JSON null). CSV (RFC 4180): a header line of the column
// names, then one line per row; a null cell is empty, text is written as
// proto::text::CsvField writes it (quoted when it holds a comma, quote or line
// break; a quote before text a spreadsheet would run as a formula),
// numbers are written with up to 9 significant digits.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "nlohmann/json.hpp"

namespace kbench::server::http {

using Cell = std::variant<std::monostate, std::string, int64_t, double, bool>;

struct Table {
  explicit Table(std::vector<std::string> columns) : columns(std::move(columns)) {}

  std::vector<std::string> columns;
  // Each row has one cell per column, in the columns' order.
  std::vector<std::vector<Cell>> rows;
  // True when the runs behind the table were cut at the API's read limit.
  bool truncated = false;
};

nlohmann::json ToJson(const Table& table);
std::string ToCsv(const Table& table);

}  // namespace kbench::server::http
