// CSV injection: text a learner chose (a label, an email) that a
// spreadsheet would run as a formula (= + - @, a tab or a carriage return
// first) opens as text in every CSV kbench writes: the dashboard's tables,
// `kbench runs --csv` and `kbench export --csv`, and `kbench-server admin
// import-roster`'s tokens. All three write fields through proto::text::CsvField.
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "client/csv_format.h"
#include "client/history_format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "proto/text/csv_field.h"
#include "server/app/roster.h"
#include "tests/run_records.h"
#include "tests/security_server.h"

namespace kbench::testing {
namespace {

const std::vector<std::string> kFormulas = {"=1+2",    "=cmd|' /C calc'!A0",
                                            "@SUM(1)", "+1+1",
                                            "-1+1",    "\t=1+2",
                                            "\r=1+2",  "=HYPERLINK(\"http://x\",\"y\")"};

// A cell a spreadsheet would run: it starts with = or @ or a tab or CR, or
// with + or - and is not a number.
bool IsLiveFormula(const std::string& cell) {
  if (cell.empty()) return false;
  if (cell[0] == '=' || cell[0] == '@' || cell[0] == '\t' || cell[0] == '\r') return true;
  double number = 0;
  return (cell[0] == '+' || cell[0] == '-') && !absl::SimpleAtod(cell, &number);
}

// The cells of `csv` (lines ending in LF or CRLF, no line break in a
// field), quotes undone.
std::vector<std::string> Cells(const std::string& csv) {
  std::vector<std::string> cells;
  for (std::string line : std::vector<std::string>(absl::StrSplit(csv, '\n'))) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    for (std::string& cell : client::SplitCsvLine(line)) cells.push_back(std::move(cell));
  }
  return cells;
}

// No cell of `csv` is live, and each formula is there as text.
void ExpectNeutral(const std::string& csv, const std::vector<std::string>& formulas) {
  const std::vector<std::string> cells = Cells(csv);
  for (const std::string& cell : cells) EXPECT_FALSE(IsLiveFormula(cell)) << cell << "\n" << csv;
  for (const std::string& formula : formulas)
    EXPECT_THAT(cells, ::testing::Contains("'" + formula)) << csv;
}

TEST(SecurityCsv, AFieldAFormulaWouldStartIsWrittenAsText) {
  for (const std::string& formula : kFormulas) {
    const std::string field = proto::text::CsvField(formula);
    EXPECT_EQ(client::SplitCsvLine(field), std::vector<std::string>{"'" + formula}) << field;
  }
  EXPECT_EQ(proto::text::CsvField("=1+2"), "'=1+2");
  EXPECT_EQ(proto::text::CsvField("a,\"b\""), "\"a,\"\"b\"\"\"");
  EXPECT_EQ(proto::text::CsvField("=SUM(A1,A2)"), "\"'=SUM(A1,A2)\"");
  for (const std::string number : {"-1.5", "+2e-3", "42", "-0.25E+7", "lab1", ""})
    EXPECT_EQ(proto::text::CsvField(number), number);
}

TEST(SecurityCsv, TheDashboardsCsvHoldsNoLiveFormula) {
  SecurityServer server;
  ASSERT_TRUE(server.ok());
  for (size_t i = 0; i < kFormulas.size(); ++i)
    ASSERT_TRUE(server.runs()
                    .Accept(AdmittedRun("run-" + std::to_string(2000 + i), 2000 + i, kFormulas[i],
                                        "attention", "ada"))
                    .ok());
  for (const std::string path :
       {"/api/labels?format=csv", "/api/runs?format=csv", "/api/learner?learner=ada&format=csv"}) {
    httplib::Result result = server.Get(path, server.tokens().grace);
    ASSERT_TRUE(result) << path;
    ASSERT_EQ(result->status, 200) << path << ": " << result->body;
    ExpectNeutral(result->body, kFormulas);
  }
}

TEST(SecurityCsv, KbenchRunsAndExportCsvHoldNoLiveFormula) {
  std::vector<v1::RunRecord> runs;
  std::string exported = client::ExportCsvHeader() + "\n";
  for (size_t i = 0; i < kFormulas.size(); ++i) {
    runs.push_back(AdmittedRun("run-" + std::to_string(i), 1000 + i, kFormulas[i]));
    runs.back().set_user("@user");
    runs.back().set_error("-error");
    exported += client::FormatExportCsvRows(runs.back());
  }
  std::vector<std::string> expected = kFormulas;
  expected.insert(expected.end(), {"@user", "-error"});
  ExpectNeutral(client::FormatRunsCsv(runs), expected);
  ExpectNeutral(exported, expected);
}

TEST(SecurityCsv, ImportRostersTokensHoldNoLiveFormula) {
  std::istringstream roster("name,email\nada,=1+2\nbob,@SUM(1)\ncy,-1+1\n");
  absl::StatusOr<std::vector<server::store::NewUser>> learners =
      server::ParseRoster(roster, "fall24");
  ASSERT_TRUE(learners.ok()) << learners.status();
  const std::vector<std::string> tokens(learners->size(), "kbt_token");
  ExpectNeutral(server::RosterTokensCsv(*learners, tokens), {"=1+2", "@SUM(1)", "-1+1"});
}

}  // namespace
}  // namespace kbench::testing
