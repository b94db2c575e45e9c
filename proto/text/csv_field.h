// One field of a CSV line (RFC 4180), as every CSV that kbench writes
// holds it: the dashboard's tables (server/http), `kbench runs --csv` and
// `kbench export --csv` (client/), and `kbench-server admin
// import-roster`'s tokens (server/app). Fields hold text that learners
// chose (labels, names, emails), and a spreadsheet runs a cell that starts
// with = + - or @ as a formula (`=cmd|' /C calc'!A0`, `=HYPERLINK(...)`):
// such a field is written with a single quote before it, as OWASP's "CSV
// injection" advice says, so that it opens as the text it is.
#pragma once

#include <string>
#include <string_view>

namespace kbench::proto::text {

// `text` as a CSV field: a quote (') before it when it starts with = + - @,
// a tab or a carriage return, unless it is a plain decimal number ("-1.5",
// "+2e-3": a spreadsheet reads those as numbers, not formulas); then in
// double quotes, its quotes doubled, when it holds a comma, a quote or a
// line break.
std::string CsvField(std::string_view text);

}  // namespace kbench::proto::text
