// Unit tests of the kbench CLI library: flag values, the command line, exit
// codes, and the table, CSV, JSON and progress output of hand-built events.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "command_line.h"
#include "csv_format.h"
#include "exit_codes.h"
#include "flag_values.h"
#include "json_format.h"
#include "progress_reporter.h"
#include "run_report.h"
#include "table_format.h"

namespace kbench::client {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// ---- Flag values -----------------------------------------------------------

TEST(ParseCount, AcceptsPlainIntegers) {
  EXPECT_EQ(ParseCount("1000").value(), 1000u);
  EXPECT_EQ(ParseCount("1").value(), 1u);
}

TEST(ParseCount, AcceptsPowers) {
  EXPECT_EQ(ParseCount("2^28").value(), uint64_t{1} << 28);
  EXPECT_EQ(ParseCount("10^6").value(), 1000000u);
  EXPECT_EQ(ParseCount("2^0").value(), 1u);
}

TEST(ParseCount, ReadsKMAndGSuffixesAsPowersOfTwo) {
  EXPECT_EQ(ParseCount("1Mi").value(), uint64_t{1} << 20);
  EXPECT_EQ(ParseCount("1M").value(), uint64_t{1} << 20);
  EXPECT_EQ(ParseCount("16Mi").value(), uint64_t{16} << 20);
  EXPECT_EQ(ParseCount("4K").value(), 4096u);
  EXPECT_EQ(ParseCount("4k").value(), 4096u);
  EXPECT_EQ(ParseCount("2Gi").value(), uint64_t{2} << 30);
}

TEST(ParseCount, RefusesZeroNegativesAndGarbageQuotingTheText) {
  for (const char* bad : {"0", "-5", "abc", "", "1.5M", "2^", "^3", "1Mx", " 5",
                          "5 ", "1Ti", "0Mi", "0^3", "1e6"}) {
    absl::StatusOr<uint64_t> count = ParseCount(bad);
    ASSERT_FALSE(count.ok()) << bad;
    EXPECT_EQ(count.status().code(), absl::StatusCode::kInvalidArgument);
    const std::string quoted = std::string("'").append(bad).append("'");
    EXPECT_THAT(std::string(count.status().message()), HasSubstr(quoted));
  }
}

TEST(ParseCount, RefusesCountsThatOverflow64Bits) {
  EXPECT_FALSE(ParseCount("2^64").ok());
  EXPECT_FALSE(ParseCount("18446744073709551616").ok());
  EXPECT_FALSE(ParseCount("17179869184Gi").ok());
  EXPECT_EQ(ParseCount("2^63").value(), uint64_t{1} << 63);
}

TEST(SplitVariantList, SplitsOnCommasAndTrimsSpaces) {
  EXPECT_EQ(SplitVariantList("naive,vectorized").value(),
            (std::vector<std::string>{"naive", "vectorized"}));
  EXPECT_EQ(SplitVariantList(" naive , fused ").value(),
            (std::vector<std::string>{"naive", "fused"}));
  EXPECT_EQ(SplitVariantList("fused").value(),
            (std::vector<std::string>{"fused"}));
}

TEST(SplitVariantList, RefusesEmptyNames) {
  for (const char* bad : {"", "naive,,fused", "naive,", ",naive", " , "}) {
    EXPECT_FALSE(SplitVariantList(bad).ok()) << "'" << bad << "'";
  }
}

TEST(ParseDType, KnowsTheThreeDTypesAndNamesThemBack) {
  EXPECT_EQ(ParseDType("bf16").value(), v1::DTYPE_BF16);
  EXPECT_EQ(DTypeName(ParseDType("fp16").value()), "fp16");
  EXPECT_EQ(DTypeName(v1::DTYPE_UNSPECIFIED), "fp32");
  EXPECT_FALSE(ParseDType("fp64").ok());
}

// ---- Command line ----------------------------------------------------------

struct Parsed {
  std::variant<CommandLine, ExitCode> result;
  std::string out;
  std::string err;
};

Parsed Parse(std::vector<const char*> args) {
  args.insert(args.begin(), "kbench");
  std::ostringstream out, err;
  auto result =
      ParseCommandLine(static_cast<int>(args.size()), args.data(), out, err);
  return {std::move(result), out.str(), err.str()};
}

TEST(ParseCommandLine, TakesGlobalOptionsAfterTheSubcommand) {
  Parsed parsed = Parse({"vector-add", "--n", "1Mi", "--json", "--server",
                         "gpu1:7000", "--timeout", "30", "--quiet"});
  const auto& line = std::get<CommandLine>(parsed.result);
  EXPECT_EQ(line.options.format, OutputFormat::kJson);
  EXPECT_EQ(line.options.server, "gpu1:7000");
  EXPECT_EQ(line.options.timeout_s, 30);
  EXPECT_TRUE(line.options.quiet);
  EXPECT_EQ(std::get<v1::VectorAddRequest>(line.command).n(), 1u << 20);
}

TEST(ParseCommandLine, TakesGlobalOptionsBeforeTheSubcommand) {
  Parsed parsed = Parse({"--csv", "attention", "--seq", "128"});
  EXPECT_EQ(std::get<CommandLine>(parsed.result).options.format,
            OutputFormat::kCsv);
}

TEST(ParseCommandLine, FillsTheAttentionRequestWithDefaultsAndFlags) {
  Parsed parsed =
      Parse({"attention", "--seq", "4096", "--causal", "--variant",
             "naive,fused", "--dtype", "bf16", "--min-samples", "7",
             "--target-rse", "0.005", "--mode", "hot", "--seed", "42"});
  const auto& request = std::get<v1::AttentionRequest>(
      std::get<CommandLine>(parsed.result).command);
  EXPECT_EQ(request.batch(), 1u);
  EXPECT_EQ(request.heads(), 8u);
  EXPECT_EQ(request.head_dim(), 64u);
  EXPECT_EQ(request.seq_len(), 4096u);
  EXPECT_TRUE(request.causal());
  EXPECT_EQ(request.dtype(), v1::DTYPE_BF16);
  ASSERT_EQ(request.variants_size(), 2);
  EXPECT_EQ(request.variants(1), "fused");
  EXPECT_EQ(request.timing().min_samples(), 7u);
  EXPECT_DOUBLE_EQ(request.timing().target_rse(), 0.005);
  EXPECT_EQ(request.timing().mode(), v1::TIMING_MODE_HOT);
  EXPECT_EQ(request.timing().time_budget_ms(), 0);  // unset: server default
  EXPECT_EQ(request.seed(), 42u);
}

TEST(ParseCommandLine, DefaultsToLocalhostWithoutFlagOrEnvironment) {
  unsetenv("KBENCH_SERVER");
  Parsed parsed = Parse({"info"});
  EXPECT_EQ(std::get<CommandLine>(parsed.result).options.server,
            "localhost:50051");
  setenv("KBENCH_SERVER", "envhost:1234", 1);
  Parsed from_env = Parse({"info"});
  unsetenv("KBENCH_SERVER");
  EXPECT_EQ(std::get<CommandLine>(from_env.result).options.server,
            "envhost:1234");
}

TEST(ParseCommandLine, RefusesABadCountNamingTheFlag) {
  Parsed parsed = Parse({"vector-add", "--n", "-5"});
  EXPECT_EQ(std::get<ExitCode>(parsed.result), ExitCode::kBadArguments);
  EXPECT_THAT(parsed.err, HasSubstr("--n"));
  EXPECT_THAT(parsed.err, HasSubstr("'-5'"));
}

TEST(ParseCommandLine, RefusesJsonWithCsv) {
  Parsed parsed = Parse({"vector-add", "--n", "8", "--json", "--csv"});
  EXPECT_EQ(std::get<ExitCode>(parsed.result), ExitCode::kBadArguments);
}

TEST(ParseCommandLine, RefusesAMissingSubcommandOrRequiredFlag) {
  EXPECT_EQ(std::get<ExitCode>(Parse({}).result), ExitCode::kBadArguments);
  Parsed parsed = Parse({"attention"});
  EXPECT_EQ(std::get<ExitCode>(parsed.result), ExitCode::kBadArguments);
  EXPECT_THAT(parsed.err, HasSubstr("--seq"));
}

TEST(ParseCommandLine, HelpTeachesExitCodesEnvironmentAndExamples) {
  Parsed parsed = Parse({"--help"});
  EXPECT_EQ(std::get<ExitCode>(parsed.result), ExitCode::kOk);
  EXPECT_THAT(parsed.out, HasSubstr("KBENCH_SERVER"));
  EXPECT_THAT(parsed.out, HasSubstr("130"));
  EXPECT_THAT(parsed.out, HasSubstr("kbench attention --seq 4096"));
  Parsed sub = Parse({"vector-add", "--help"});
  EXPECT_THAT(sub.out, HasSubstr("--budget-ms"));
  EXPECT_THAT(sub.out, HasSubstr("Exit codes"));
}

// ---- Exit codes ------------------------------------------------------------

TEST(ExitCodeForStatus, MapsInvalidArgumentTo2AndOtherFailuresTo3) {
  EXPECT_EQ(ExitCodeForStatus(grpc::StatusCode::OK), ExitCode::kOk);
  EXPECT_EQ(ExitCodeForStatus(grpc::StatusCode::INVALID_ARGUMENT),
            ExitCode::kBadArguments);
  for (grpc::StatusCode code :
       {grpc::StatusCode::UNAVAILABLE, grpc::StatusCode::INTERNAL,
        grpc::StatusCode::DEADLINE_EXCEEDED,
        grpc::StatusCode::RESOURCE_EXHAUSTED, grpc::StatusCode::CANCELLED,
        grpc::StatusCode::UNKNOWN, grpc::StatusCode::UNAUTHENTICATED}) {
    EXPECT_EQ(ExitCodeForStatus(code), ExitCode::kServerError)
        << static_cast<int>(code);
  }
}

TEST(DescribeRpcFailure, PassesOnTheServersMessageForInvalidRequests) {
  grpc::Status status(grpc::StatusCode::INVALID_ARGUMENT,
                      "seq_len must be 1 to 65536");
  EXPECT_EQ(DescribeRpcFailure(status, "localhost:50051", 600),
            "kbench: invalid request: seq_len must be 1 to 65536");
}

TEST(DescribeRpcFailure, TellsHowToReachTheServerWhenUnavailable) {
  std::string message = DescribeRpcFailure(
      grpc::Status(grpc::StatusCode::UNAVAILABLE, "connection refused"),
      "localhost:50051", 600);
  EXPECT_THAT(message, HasSubstr("cannot reach server at localhost:50051"));
  EXPECT_THAT(message, HasSubstr("KBENCH_SERVER"));
}

// ---- Reports ---------------------------------------------------------------

v1::RunEvent Started() {
  v1::RunEvent event;
  v1::Started* started = event.mutable_started();
  started->set_run_id("run-17");
  started->set_backend("cpu");
  started->set_device("Test CPU");
  started->set_seed(42);
  started->add_variants("naive");
  started->add_variants("vectorized");
  started->set_timing_method("host steady_clock around the kernel call");
  return event;
}

v1::RunEvent Result(const std::string& variant, double median_ms, double gbps,
                    bool passed) {
  v1::RunEvent event;
  v1::VariantResult* result = event.mutable_variant_result();
  result->set_variant(variant);
  v1::Statistics* stats = result->mutable_stats();
  stats->set_samples(50);
  stats->set_median_ms(median_ms);
  stats->set_p10_ms(median_ms * 0.9);
  stats->set_p90_ms(median_ms * 1.1);
  stats->set_stop_reason(v1::STOP_REASON_CONVERGED);
  v1::Throughput* throughput = result->mutable_throughput();
  throughput->set_value(gbps);
  throughput->set_unit("GB/s");
  throughput->set_formula("bytes = 3 * n * 4");
  throughput->set_fraction_of_ceiling(gbps / 4237.0);
  v1::Verification* verification = result->mutable_verification();
  verification->set_passed(passed);
  verification->set_rel_l2_error(passed ? 3.1e-8 : 0.42);
  verification->set_tolerance(1e-5);
  return event;
}

v1::RunEvent Summary(bool all_verified) {
  v1::RunEvent event;
  v1::Summary* summary = event.mutable_summary();
  summary->set_run_id("run-17");
  summary->set_all_verified(all_verified);
  v1::Speedup* speedup = summary->add_speedups();
  speedup->set_variant("vectorized");
  speedup->set_baseline("naive");
  speedup->set_speedup(2.31);
  speedup->set_ci_low(2.28);
  speedup->set_ci_high(2.35);
  speedup->set_verdict(v1::VERDICT_FASTER);
  return event;
}

RunReport VectorAddReport(bool vectorized_passes = true) {
  v1::VectorAddRequest request;
  request.set_n(1000);
  request.add_variants("naive");
  request.add_variants("vectorized");
  RunReport report;
  report.request = request;
  for (const v1::RunEvent& event :
       {Started(), Result("naive", 1.5, 812.3, true),
        Result("vectorized", 0.65, 1874.0, vectorized_passes),
        Summary(vectorized_passes)}) {
    RecordEvent(event, report);
  }
  return report;
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream stream(text);
  for (std::string line; std::getline(stream, line);) lines.push_back(line);
  return lines;
}

size_t FieldCount(const std::string& csv_line) {
  return std::count(csv_line.begin(), csv_line.end(), ',') + 1;
}

TEST(RunReport, IsVerifiedOnlyWhenEveryResultPassed) {
  EXPECT_TRUE(AllVerified(VectorAddReport()));
  EXPECT_FALSE(AllVerified(VectorAddReport(/*vectorized_passes=*/false)));
}

TEST(FormatTable, ShowsHeaderColumnsAndTheSpeedupVerdict) {
  const std::string table = FormatTable(VectorAddReport());
  EXPECT_THAT(table, HasSubstr("vector_add n=1000, fp32, cpu (Test CPU)"));
  EXPECT_THAT(table, HasSubstr("100 samples"));
  EXPECT_THAT(table, HasSubstr("run run-17"));
  EXPECT_THAT(table, HasSubstr("seed 42"));
  EXPECT_THAT(table, HasSubstr("median ms"));
  EXPECT_THAT(table, HasSubstr("812.3 GB/s"));
  EXPECT_THAT(table, HasSubstr("19.2%"));     // 812.3 / 4237
  EXPECT_THAT(table, HasSubstr("3.10e-08"));  // rel err
  EXPECT_THAT(table, HasSubstr("baseline"));
  EXPECT_THAT(table, HasSubstr("2.31x [2.28, 2.35] faster"));
  EXPECT_THAT(table, HasSubstr("throughput: bytes = 3 * n * 4"));
  EXPECT_THAT(table, HasSubstr("naive converged, vectorized converged"));
  EXPECT_THAT(table, Not(HasSubstr("clocks:")));  // the CPU has none
}

// The cells of `variant`'s row of a table: columns are separated by two or
// more spaces, and no cell holds two spaces in a row.
std::vector<std::string> TableRow(const std::string& table,
                                  const std::string& variant) {
  for (const std::string& line : Lines(table)) {
    if (line.rfind(variant + " ", 0) != 0) continue;
    std::vector<std::string> cells;
    size_t begin = 0;
    while (begin < line.size()) {
      size_t end = line.find("  ", begin);
      if (end == std::string::npos) end = line.size();
      cells.push_back(line.substr(begin, end - begin));
      begin = line.find_first_not_of(' ', end);
    }
    return cells;
  }
  return {};
}

TEST(FormatTable, PutsEachVariantOnItsOwnRowInColumnOrder) {
  const std::string table =
      FormatTable(VectorAddReport(/*vectorized_passes=*/false));
  EXPECT_EQ(
      TableRow(table, "naive"),
      (std::vector<std::string>{"naive", "1.5", "1.35", "1.65", "812.3 GB/s",
                                "19.2%", "3.10e-08", "yes", "baseline"}));
  EXPECT_EQ(TableRow(table, "vectorized"),
            (std::vector<std::string>{"vectorized", "0.65", "0.585", "0.715",
                                      "1874 GB/s", "44.2%", "4.20e-01", "NO",
                                      "2.31x [2.28, 2.35] faster"}));
}

TEST(FormatTable, ShowsClocksAndThrottlingWhenAvailable) {
  RunReport report = VectorAddReport();
  v1::Clocks* clocks = report.results[1].mutable_clocks();
  clocks->set_available(true);
  clocks->set_sm_clock_mhz_min(1755);
  clocks->set_sm_clock_mhz_max(1980);
  clocks->set_throttled(true);
  EXPECT_THAT(FormatTable(report),
              HasSubstr("clocks: vectorized 1755-1980 MHz throttled"));
}

TEST(FormatTable, ShowsADashWhenNoCeilingWasMeasured) {
  RunReport report = VectorAddReport();
  for (v1::VariantResult& result : report.results) {
    result.mutable_throughput()->set_fraction_of_ceiling(0);
  }
  const std::vector<std::string> row = TableRow(FormatTable(report), "naive");
  ASSERT_EQ(row.size(), 9u);
  EXPECT_EQ(row[5], "-");
}

TEST(FormatCsv, WritesTheHeaderAndOneRowPerVariantOf29Fields) {
  const std::vector<std::string> lines = Lines(FormatCsv(VectorAddReport()));
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0], CsvHeader());
  EXPECT_EQ(lines[0].rfind("run_id,op,dtype,n,batch,", 0), 0u);
  for (const std::string& line : lines) EXPECT_EQ(FieldCount(line), 29u);
  EXPECT_EQ(lines[1].rfind("run-17,vector_add,fp32,1000,,,,,,naive,50,1.5,", 0),
            0u);
  // The baseline has no speedup; the other row has it and its verdict.
  EXPECT_THAT(lines[1], HasSubstr(",true,,,,,converged"));
  EXPECT_THAT(lines[2], HasSubstr(",true,2.31,2.28,2.35,faster,converged"));
}

TEST(FormatCsv, LeavesNEmptyForAttentionAndFillsTheShape) {
  v1::AttentionRequest request;
  request.set_batch(2);
  request.set_heads(8);
  request.set_seq_len(256);
  request.set_head_dim(64);
  request.set_causal(true);
  RunReport report = VectorAddReport();
  report.request = request;
  const std::vector<std::string> lines = Lines(FormatCsv(report));
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[1].rfind("run-17,attention,fp32,,2,8,256,64,true,naive,", 0),
            0u);
  EXPECT_EQ(FieldCount(lines[1]), 29u);
}

TEST(FormatRunJson, AssemblesRequestStartedResultsAndSummary) {
  const nlohmann::json json =
      nlohmann::json::parse(FormatRunJson(VectorAddReport()));
  EXPECT_EQ(json["run_id"], "run-17");
  EXPECT_EQ(json["op"], "vector_add");
  EXPECT_EQ(json["request"]["n"], "1000");  // proto JSON: uint64 as string
  EXPECT_EQ(json["started"]["device"], "Test CPU");
  ASSERT_EQ(json["results"].size(), 2u);
  EXPECT_EQ(json["results"][0]["verification"]["passed"], true);
  EXPECT_EQ(json["results"][1]["stats"]["samples"], 50);
  EXPECT_EQ(json["results"][1]["verification"]["passed"], true);
  ASSERT_EQ(json["summary"]["speedups"].size(), 1u);
  EXPECT_EQ(json["summary"]["speedups"][0]["verdict"], "VERDICT_FASTER");
}

// ---- Progress --------------------------------------------------------------

// A clock the test moves by hand.
struct FakeClock {
  std::chrono::steady_clock::time_point now{};
  ProgressReporter::Clock AsClock() {
    return [this] { return now; };
  }
};

v1::RunEvent SampleOf(const std::string& variant) {
  v1::RunEvent event;
  event.mutable_sample()->set_variant(variant);
  return event;
}

TEST(ProgressReporter, ReportsQueueStartAndVerificationOnALog) {
  std::ostringstream out;
  FakeClock clock;
  ProgressReporter progress(out, /*is_tty=*/false, clock.AsClock());
  v1::RunEvent queued;
  queued.mutable_queued()->set_position(2);
  queued.mutable_queued()->set_running(1);
  progress.OnEvent(queued);
  progress.OnEvent(Started());
  progress.OnEvent(Result("naive", 1, 1, true));
  progress.OnEvent(Result("vectorized", 1, 1, false));
  progress.Finish();
  EXPECT_THAT(out.str(), HasSubstr("queued: position 2 (1 running)\n"));
  EXPECT_THAT(
      out.str(),
      HasSubstr("started on cpu (Test CPU), variants naive,vectorized"));
  EXPECT_THAT(out.str(), HasSubstr("naive: verified"));
  EXPECT_THAT(out.str(), HasSubstr("vectorized: FAILED verification"));
}

TEST(ProgressReporter, PrintsSampleCountsOnALogAtMostEveryTwoSeconds) {
  std::ostringstream out;
  FakeClock clock;
  ProgressReporter progress(out, /*is_tty=*/false, clock.AsClock());
  progress.OnEvent(Started());
  for (int i = 0; i < 10; ++i) progress.OnEvent(SampleOf("naive"));
  EXPECT_THAT(out.str(), Not(HasSubstr("samples:")));
  clock.now += std::chrono::milliseconds(2100);
  progress.OnEvent(SampleOf("vectorized"));
  EXPECT_THAT(out.str(), HasSubstr("samples: naive 10, vectorized 1\n"));
  progress.OnEvent(SampleOf("naive"));
  progress.OnEvent(Result("naive", 1, 1, true));  // flushes the final counts
  EXPECT_THAT(out.str(), HasSubstr("samples: naive 11, vectorized 1\n"));
}

TEST(ProgressReporter, RewritesOneLineOnATerminal) {
  std::ostringstream out;
  FakeClock clock;
  ProgressReporter progress(out, /*is_tty=*/true, clock.AsClock());
  progress.OnEvent(Started());
  clock.now += std::chrono::milliseconds(150);
  progress.OnEvent(SampleOf("naive"));
  clock.now += std::chrono::milliseconds(150);
  progress.OnEvent(SampleOf("vectorized"));
  EXPECT_THAT(out.str(), HasSubstr("\rsamples: naive 1, vectorized 0"));
  EXPECT_THAT(out.str(), HasSubstr("\rsamples: naive 1, vectorized 1"));
  progress.Finish();
  EXPECT_EQ(out.str().back(), '\n');
}

}  // namespace
}  // namespace kbench::client
