// Unit tests of the history's output and arguments in the kbench client
// library: times, run statuses, the runs table and CSV, the export rows,
// `kbench show`'s text, and the messages of failed history calls.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <ctime>
#include <string>
#include <vector>

#include "client/csv_format.h"
#include "client/history_calls.h"
#include "client/history_format.h"
#include "client/run_details_format.h"
#include "client/time_values.h"

namespace kbench::client {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

class UtcTime : public ::testing::Test {
 protected:
  void SetUp() override {
    setenv("TZ", "UTC", 1);
    tzset();
  }
};

using ParseTimeTest = UtcTime;

TEST_F(ParseTimeTest, ReadsSpansBackFromNow) {
  const int64_t now = 1'700'000'000'000;
  EXPECT_EQ(ParseTime("90s", now).value(), now - 90'000);
  EXPECT_EQ(ParseTime("30m", now).value(), now - 30 * 60'000);
  EXPECT_EQ(ParseTime("12h", now).value(), now - 12 * 3'600'000);
  EXPECT_EQ(ParseTime("7d", now).value(), now - 7 * 86'400'000LL);
}

TEST_F(ParseTimeTest, ReadsDatesAndTimes) {
  EXPECT_EQ(ParseTime("2024-05-01", 0).value(), 1714521600000);
  EXPECT_EQ(ParseTime("2024-05-01T14:30", 0).value(), 1714573800000);
  EXPECT_EQ(ParseTime("2024-05-01 14:30:05", 0).value(), 1714573805000);
  EXPECT_EQ(ParseTime("2024-05-01T14:30Z", 0).value(), 1714573800000);
}

TEST_F(ParseTimeTest, RefusesOtherTextQuotingIt) {
  for (const char* bad : {"", "5", "5w", "-5m", "yesterday", "2024-5-1", "2024-05-01T14",
                          "2024-05-01T14:30:5", "2024/05/01"}) {
    const auto time = ParseTime(bad, 0);
    ASSERT_FALSE(time.ok()) << bad;
    EXPECT_THAT(time.status().message(), HasSubstr("is not a time")) << bad;
  }
}

TEST(RunStatusName, NamesEveryStatusAndReadsItBack) {
  EXPECT_EQ(RunStatusName(v1::RUN_STATUS_FAILED_VERIFICATION), "failed_verification");
  EXPECT_EQ(ParseRunStatus("failed-verification").value(), v1::RUN_STATUS_FAILED_VERIFICATION);
  EXPECT_EQ(ParseRunStatus("ok").value(), v1::RUN_STATUS_OK);
  EXPECT_THAT(ParseRunStatus("done").status().message(),
              HasSubstr("'done' is not a run status; use queued, running, ok"));
}

// An attention run that completed, naive against fused, fused faster.
v1::RunRecord CompletedRun() {
  v1::RunRecord run;
  run.set_run_id("run-7");
  run.set_peer("ipv4:127.0.0.1:5000");
  run.set_label("lab3");
  run.set_op("attention");
  run.set_status(v1::RUN_STATUS_OK);
  run.set_accepted_unix_ms(1714573800000);
  v1::RunRequest& request = *run.mutable_request();
  request.mutable_attention()->set_batch(1);
  request.mutable_attention()->set_heads(8);
  request.mutable_attention()->set_seq_len(1024);
  request.mutable_attention()->set_head_dim(64);
  request.set_dtype(v1::DTYPE_FP16);
  request.add_variants("naive");
  request.add_variants("fused");
  run.mutable_device()->set_backend("cuda");
  run.mutable_device()->set_name("NVIDIA H200");
  run.mutable_device()->set_matmul_tflops(612);
  for (const char* variant : {"naive", "fused"}) {
    v1::VariantResult& result = *run.add_results();
    result.set_variant(variant);
    result.mutable_stats()->set_samples(3);
    result.mutable_stats()->set_median_ms(variant[0] == 'n' ? 2.5 : 0.5);
    result.mutable_throughput()->set_value(variant[0] == 'n' ? 40 : 200);
    result.mutable_throughput()->set_unit("TFLOP/s");
    result.mutable_verification()->set_passed(true);
    v1::SampleSeries& series = *run.add_samples();
    series.set_variant(variant);
    for (double ms : {3.0, 1.0, 2.0}) series.add_ms(ms);
  }
  v1::Summary& summary = *run.mutable_summary();
  summary.set_all_verified(true);
  v1::Speedup& speedup = *summary.add_speedups();
  speedup.set_variant("fused");
  speedup.set_baseline("naive");
  speedup.set_speedup(5);
  speedup.set_verdict(v1::VERDICT_FASTER);
  return run;
}

v1::RunRecord RefusedRun() {
  v1::RunRecord run;
  run.set_run_id("run-8");
  run.set_user("ada");
  run.set_op("attention");
  run.set_status(v1::RUN_STATUS_REFUSED);
  run.set_error("seq_len must be at most 8192");
  run.mutable_request()->mutable_attention()->set_seq_len(1 << 20);
  return run;
}

using RunsTable = UtcTime;

TEST_F(RunsTable, ShowsEachRunsBestVerifiedVariantAndStatus) {
  const std::string table = FormatRunsTable({CompletedRun(), RefusedRun()});
  EXPECT_THAT(table, HasSubstr("run    accepted"));
  EXPECT_THAT(table, HasSubstr("run-7  2024-05-01 14:30:00  ipv4:127.0.0.1:5000  lab3"));
  EXPECT_THAT(table, HasSubstr("attention batch=1 heads=8 seq_len=1024 head_dim=64"));
  EXPECT_THAT(table, HasSubstr("fp16   ok"));
  EXPECT_THAT(table, HasSubstr("fused  0.5"));
  EXPECT_THAT(table, HasSubstr("200"));
  EXPECT_THAT(table, HasSubstr("run-8  -"));
  EXPECT_THAT(table, HasSubstr("ada"));
  EXPECT_THAT(table, HasSubstr("refused"));
  // Why the refused run has no results, under the table.
  EXPECT_THAT(table, HasSubstr("\nrun-8 refused: seq_len must be at most 8192\n"));
  EXPECT_EQ(FormatRunsTable({}), "no runs\n");
}

TEST_F(RunsTable, HasACsvLinePerRunWithTheProblemColumns) {
  const std::string csv = FormatRunsCsv({CompletedRun(), RefusedRun()});
  const std::vector<std::string> lines = [&] {
    std::vector<std::string> l;
    size_t at = 0;
    while (at < csv.size()) {
      const size_t end = csv.find('\n', at);
      l.push_back(csv.substr(at, end - at));
      at = end + 1;
    }
    return l;
  }();
  ASSERT_EQ(lines.size(), 3u);
  const std::vector<std::string> header = SplitCsvLine(lines[0]);
  const std::vector<std::string> run = SplitCsvLine(lines[1]);
  ASSERT_EQ(run.size(), header.size());
  auto column = [&](const std::vector<std::string>& row, const std::string& n) {
    return row[std::find(header.begin(), header.end(), n) - header.begin()];
  };
  EXPECT_EQ(column(run, "seq_len"), "1024");
  EXPECT_EQ(column(run, "best_variant"), "fused");
  EXPECT_EQ(column(run, "verified"), "true");
  EXPECT_EQ(column(run, "accepted"), "2024-05-01 14:30:00");
  const std::vector<std::string> refused = SplitCsvLine(lines[2]);
  EXPECT_EQ(column(refused, "status"), "refused");
  EXPECT_EQ(column(refused, "verified"), "");
  EXPECT_EQ(column(refused, "error"), "seq_len must be at most 8192");
}

TEST(ExportCsv, HasARowPerVariantWithTheRunsFieldsAndOneForARunWithout) {
  const std::vector<std::string> header = SplitCsvLine(ExportCsvHeader());
  EXPECT_EQ(header[0], "accepted_unix_ms");
  EXPECT_EQ(header[9], "run_id");
  const std::string rows = FormatExportCsvRows(CompletedRun());
  const std::string first = rows.substr(0, rows.find('\n'));
  EXPECT_EQ(std::count(rows.begin(), rows.end(), '\n'), 2);
  const std::vector<std::string> fields = SplitCsvLine(first);
  ASSERT_EQ(fields.size(), header.size());
  EXPECT_EQ(fields[4], "lab3");
  EXPECT_EQ(fields[5], "ok");
  EXPECT_EQ(fields[8], "NVIDIA H200");
  EXPECT_EQ(fields[9], "run-7");
  const std::string refused = FormatExportCsvRows(RefusedRun());
  EXPECT_EQ(std::count(refused.begin(), refused.end(), '\n'), 1);
  const std::vector<std::string> row = SplitCsvLine(refused.substr(0, refused.size() - 1));
  ASSERT_EQ(row.size(), header.size());
  EXPECT_EQ(row[6], "seq_len must be at most 8192");
  EXPECT_EQ(row[std::find(header.begin(), header.end(), "variant") - header.begin()], "");
}

using RunDetails = UtcTime;

TEST_F(RunDetails, ShowEverythingAndSummariseTheSamples) {
  const std::string text = FormatRunDetails(CompletedRun());
  for (const char* part :
       {"run run-7: ok", "peer ipv4:127.0.0.1:5000", "label: lab3", "accepted 2024-05-01 14:30:00",
        "variants naive,fused", "device: cuda #0 (NVIDIA H200)", "matmul 612 TFLOP/s", "median ms",
        "5.00x", "naive: passed", "naive 3 (min 1, median 2, max 3 ms)"}) {
    EXPECT_THAT(text, HasSubstr(part));
  }
  EXPECT_THAT(text, Not(HasSubstr("3, 1, 2")));
  const std::string refused = FormatRunDetails(RefusedRun());
  EXPECT_THAT(refused, HasSubstr("run run-8: refused: seq_len must be at most 8192"));
  EXPECT_THAT(refused, HasSubstr("device: -"));
  // Its timing was never resolved: "default", not "default ms".
  EXPECT_THAT(refused, HasSubstr("min time default, "));
  EXPECT_THAT(refused, Not(HasSubstr("default ms")));
}

TEST(FormatRunSources, PrintsEachKernelsSourceAfterALineNamingIt) {
  v1::RunRecord run = CompletedRun();
  EXPECT_EQ(FormatRunSources(run), "// run run-7 has no kernels of its own\n");
  v1::KernelSource* add = run.mutable_request()->add_kernels();
  add->set_name("my_add.cu");
  add->set_language(v1::KERNEL_LANGUAGE_CUDA_CPP);
  add->set_entry("vector_add");
  add->set_source("__global__ void vector_add() {}");  // no final newline
  v1::KernelSource* ptx = run.mutable_request()->add_kernels();
  ptx->set_name("add.ptx");
  ptx->set_language(v1::KERNEL_LANGUAGE_PTX);
  ptx->set_entry("vector_add");
  ptx->set_source(".version 8.0\n");
  EXPECT_EQ(FormatRunSources(run),
            "// kernels[0] my_add.cu (CUDA_CPP, entry vector_add)\n"
            "__global__ void vector_add() {}\n"
            "// kernels[1] add.ptx (PTX, entry vector_add)\n"
            ".version 8.0\n");
}

TEST(DescribeHistoryFailure, SaysWhatAnUnknownIdOrARefusalMeans) {
  const std::string unknown = DescribeHistoryFailure(
      grpc::Status(grpc::StatusCode::NOT_FOUND, "no run x"), "h:1", 600, CallStage::kCalling, "x");
  EXPECT_THAT(unknown, HasSubstr("the server at h:1 has no run 'x'"));
  EXPECT_EQ(ExitCodeForHistoryStatus(grpc::StatusCode::NOT_FOUND), ExitCode::kBadArguments);
  const std::string denied = DescribeHistoryFailure(
      grpc::Status(grpc::StatusCode::PERMISSION_DENIED, "user: a learner sees their own runs"),
      "h:1", 600, CallStage::kCalling);
  EXPECT_THAT(denied, HasSubstr("not allowed: user: a learner sees their own runs"));
  EXPECT_EQ(ExitCodeForHistoryStatus(grpc::StatusCode::PERMISSION_DENIED), ExitCode::kNotAllowed);
  EXPECT_THAT(DescribeHistoryFailure(grpc::Status(grpc::StatusCode::UNIMPLEMENTED, ""), "h:1", 600,
                                     CallStage::kCalling),
              HasSubstr("does not offer run history"));
}

}  // namespace
}  // namespace kbench::client
