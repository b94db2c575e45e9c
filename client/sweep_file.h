// A sweep's results file: what each finished point adds to it (CSV rows as
// `kbench --csv` prints them, under one header; or one JSON line as
// `kbench --json` prints it), and reading an earlier file back for
// --resume, which skips the points it already holds.
#pragma once

#include <cstddef>
#include <set>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "client/run_report.h"
#include "kbench/v1/kbench.pb.h"

namespace kbench::client {

enum class SweepFormat { kCsv, kJsonLines };

// What --resume matches a point on: its op, every problem field of the op,
// its dtype (unspecified reads as fp32) and, with `with_variants`, its
// variants in order.
std::string PointKey(const v1::RunRequest& point, bool with_variants);

// The points an earlier results file holds.
struct SweepFile {
  SweepFormat format = SweepFormat::kCsv;
  // Bytes of whole lines; a crash while writing can leave a partial last
  // line after them, which the sweep cuts off before appending.
  size_t valid_bytes = 0;
  // True when the file holds nothing yet (no CSV header, no JSON line).
  bool empty = true;
  // PointKey with and without variants of every point in the file.
  std::set<std::string> keys;
  std::set<std::string> problem_keys;
  // JSON lines: the label of the last point; CSV rows carry no label.
  std::string label;

  // Whether `point` is in the file: its key with variants, or without them
  // when the point names none (every variant the server offers).
  bool Contains(const v1::RunRequest& point) const;
};

// Reads the text of a results file named `name`. Its format is what the
// text holds (a first line "run_id,..." is CSV, "{" JSON lines), or
// `format_if_empty` when it holds nothing. INVALID_ARGUMENT naming the file
// and the line for a CSV header other than CsvHeader() or a line that is
// not a point of either format.
absl::StatusOr<SweepFile> ReadSweepFile(std::string_view text, SweepFormat format_if_empty,
                                        const std::string& name);

// The text one finished point adds to the file: its CSV rows (no header),
// or its JSON object on one line.
std::string FormatSweepPoint(const RunReport& report, SweepFormat format);

}  // namespace kbench::client
