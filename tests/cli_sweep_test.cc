// Unit tests of sweeps in the kbench client library: axis values and
// ranges, spec files (YAML and JSON, and bad ones), the expansion into
// points, the results file read back for --resume, the summary and the
// exit code, and the sweep's command line.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "client/command_line.h"
#include "client/csv_format.h"
#include "client/json_format.h"
#include "client/sweep_file.h"
#include "client/sweep_preflight.h"
#include "client/sweep_progress.h"
#include "client/sweep_spec.h"
#include "client/sweep_spec_file.h"
#include "client/sweep_summary.h"
#include "proto/ops/registry.h"

namespace kbench::client {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

const proto::ops::ProblemField& Field(std::string_view op, std::string_view flag) {
  for (const proto::ops::ProblemField& field : proto::ops::FindOp(op)->fields()) {
    if (field.flag == flag) return field;
  }
  throw std::logic_error("no such field");
}

// ---- Axes ------------------------------------------------------------------

TEST(AxisValues, ReadsAListOfCountsInDecimal) {
  EXPECT_THAT(AxisValues(Field("attention", "--seq"), "512, 1Ki,2^11").value(),
              ElementsAre("512", "1024", "2048"));
}

TEST(AxisValues, ReadsARangeAsDoublingFromLowToHigh) {
  EXPECT_THAT(AxisValues(Field("attention", "--seq"), "2^9..2^14").value(),
              ElementsAre("512", "1024", "2048", "4096", "8192", "16384"));
  EXPECT_THAT(AxisValues(Field("attention", "--seq"), "384..2000").value(),
              ElementsAre("384", "768", "1536"));
  EXPECT_THAT(AxisValues(Field("attention", "--seq"), "64..64").value(), ElementsAre("64"));
}

TEST(AxisValues, MixesRangesAndValues) {
  EXPECT_THAT(AxisValues(Field("attention", "--seq"), "100,2^9..2^10,3000").value(),
              ElementsAre("100", "512", "1024", "3000"));
}

TEST(AxisValues, ReadsBothTrueAndFalseForABoolField) {
  const proto::ops::ProblemField& causal = Field("attention", "--causal");
  EXPECT_THAT(AxisValues(causal, "both").value(), ElementsAre("false", "true"));
  EXPECT_THAT(AxisValues(causal, "true").value(), ElementsAre("true"));
  EXPECT_THAT(AxisValues(causal, "true,false").value(), ElementsAre("true", "false"));
  EXPECT_THAT(AxisValues(causal, "yes").status().message(),
              HasSubstr("'yes' is not true, false or both"));
}

TEST(AxisValues, RefusesBadItemsQuotingThem) {
  const proto::ops::ProblemField& seq = Field("attention", "--seq");
  for (const char* bad : {"0", "2^14..2^9", "2^9..", "..4", "512,,1024", "", "abc", "1..x"}) {
    const auto values = AxisValues(seq, bad);
    ASSERT_FALSE(values.ok()) << bad;
    EXPECT_EQ(values.status().code(), absl::StatusCode::kInvalidArgument);
  }
  EXPECT_THAT(AxisValues(seq, "2^14..2^9").status().message(),
              HasSubstr("'2^14..2^9' is not a range LOW..HIGH"));
}

TEST(AxisValues, RefusesAValueListedTwice) {
  EXPECT_THAT(AxisValues(Field("attention", "--seq"), "512,2^9").status().message(),
              HasSubstr("lists 512 twice"));
  EXPECT_FALSE(AxisValues(Field("attention", "--causal"), "both,true").ok());
}

TEST(DTypeValues, ReadsAListAndRefusesUnknownsAndRepeats) {
  EXPECT_THAT(DTypeValues("fp16,bf16").value(), ElementsAre(v1::DTYPE_FP16, v1::DTYPE_BF16));
  EXPECT_THAT(DTypeValues("int8").status().message(), HasSubstr("'int8'"));
  EXPECT_FALSE(DTypeValues("fp16,fp16").ok());
}

// ---- Expansion -------------------------------------------------------------

SweepSpec AttentionSpec() {
  SweepSpec spec;
  spec.op = proto::ops::FindOp("attention");
  spec.axes.push_back({&Field("attention", "--seq"), {"512", "1024"}});
  return spec;
}

TEST(ExpandSweep, VariesTheLastFieldFastestThenDType) {
  SweepSpec spec = AttentionSpec();
  spec.axes.push_back({&Field("attention", "--causal"), {"false", "true"}});
  spec.dtypes = {v1::DTYPE_FP16, v1::DTYPE_BF16};
  spec.variants = {"naive", "fused"};
  spec.timing.set_time_budget_ms(100);
  spec.label = "lab";
  const std::vector<v1::RunRequest> points = ExpandSweep(spec).value();
  ASSERT_EQ(points.size(), 8u);
  EXPECT_EQ(points[0].attention().seq_len(), 512u);
  EXPECT_FALSE(points[0].attention().causal());
  EXPECT_EQ(points[0].dtype(), v1::DTYPE_FP16);
  EXPECT_EQ(points[1].dtype(), v1::DTYPE_BF16);
  EXPECT_TRUE(points[2].attention().causal());
  EXPECT_EQ(points[4].attention().seq_len(), 1024u);
  for (const v1::RunRequest& point : points) {
    EXPECT_EQ(point.attention().heads(), 8u);  // the op's default
    EXPECT_EQ(point.attention().head_dim(), 64u);
    EXPECT_THAT(point.variants(), ElementsAre("naive", "fused"));
    EXPECT_EQ(point.timing().time_budget_ms(), 100);
    EXPECT_EQ(point.label(), "lab");
  }
}

TEST(ExpandSweep, NamesTheFlagOfARequiredFieldWithoutValues) {
  SweepSpec spec;
  spec.op = proto::ops::FindOp("attention");
  const auto points = ExpandSweep(spec);
  ASSERT_FALSE(points.ok());
  EXPECT_THAT(points.status().message(), HasSubstr("--seq: required"));
}

TEST(ExpandSweep, NamesTheFlagOfAValueItsFieldRefuses) {
  SweepSpec spec = AttentionSpec();
  spec.axes[0].values = {"4294967296"};  // seq_len is 32 bits
  EXPECT_THAT(ExpandSweep(spec).status().message(), HasSubstr("--seq: '4294967296' is too large"));
}

TEST(ExpandSweep, RefusesMoreThanTheMostPointsWithoutMakingThem) {
  SweepSpec spec;
  spec.op = proto::ops::FindOp("attention");
  for (const char* flag : {"--seq", "--batch", "--heads", "--head-dim"}) {
    std::vector<std::string> values;
    for (int i = 1; i <= 1000; ++i) values.push_back(std::to_string(i));
    spec.axes.push_back({&Field("attention", flag), values});
  }
  EXPECT_GT(PointCount(spec), kMaxSweepPoints);
  const auto points = ExpandSweep(spec);
  ASSERT_FALSE(points.ok());
  EXPECT_THAT(points.status().message(), HasSubstr("more than 10000 points"));
  spec.axes.resize(1);
  spec.axes[0].values.resize(100);
  spec.dtypes = {v1::DTYPE_FP16, v1::DTYPE_BF16};
  EXPECT_EQ(PointCount(spec), 200u);
  EXPECT_EQ(ExpandSweep(spec).value().size(), 200u);
}

// ---- Spec files ------------------------------------------------------------

constexpr char kYamlSpec[] = R"(# a comment
op: attention
axes:
  seq: 2^9..2^10
  head-dim: [64, 128]
  causal: both
dtype: [fp16, bf16]
variant: naive, fused
timing:
  budget-ms: 200
  min-samples: 5
  mode: hot
seed: 42
label: lab3
)";

TEST(ParseSweepSpec, ReadsEveryKeyOfAYamlSpec) {
  const SweepSpec spec = ParseSweepSpec(kYamlSpec, "s.yaml").value();
  EXPECT_EQ(spec.op->name(), "attention");
  ASSERT_EQ(spec.axes.size(), 3u);
  EXPECT_THAT(spec.axes[0].values, ElementsAre("512", "1024"));
  EXPECT_THAT(spec.axes[1].values, ElementsAre("64", "128"));
  EXPECT_THAT(spec.axes[2].values, ElementsAre("false", "true"));
  EXPECT_THAT(spec.dtypes, ElementsAre(v1::DTYPE_FP16, v1::DTYPE_BF16));
  EXPECT_THAT(spec.variants, ElementsAre("naive", "fused"));
  EXPECT_EQ(spec.timing.time_budget_ms(), 200);
  EXPECT_EQ(spec.timing.min_samples(), 5u);
  EXPECT_EQ(spec.timing.mode(), v1::TIMING_MODE_HOT);
  EXPECT_EQ(spec.seed, 42u);
  EXPECT_EQ(spec.label, "lab3");
  EXPECT_EQ(ExpandSweep(spec).value().size(), 16u);
}

TEST(ParseSweepSpec, ReadsTheSameSpecWrittenAsJson) {
  const SweepSpec spec = ParseSweepSpec(R"({
    "op": "attention",
    "axes": {"seq": "2^9..2^10", "head-dim": [64, 128], "causal": "both"},
    "dtype": ["fp16", "bf16"], "variant": ["naive", "fused"],
    "timing": {"budget-ms": 200, "min-samples": 5, "mode": "hot"},
    "seed": 42, "label": "lab3"})",
                                        "s.json")
                             .value();
  const SweepSpec yaml = ParseSweepSpec(kYamlSpec, "s.yaml").value();
  const auto json_points = ExpandSweep(spec).value();
  const auto yaml_points = ExpandSweep(yaml).value();
  ASSERT_EQ(json_points.size(), yaml_points.size());
  for (size_t i = 0; i < json_points.size(); ++i) {
    EXPECT_EQ(json_points[i].SerializeAsString(), yaml_points[i].SerializeAsString());
  }
}

// The error of a spec that is kYamlSpec with `from` replaced by `to`.
std::string ErrorOf(const std::string& from, const std::string& to) {
  std::string text = kYamlSpec;
  text.replace(text.find(from), from.size(), to);
  const absl::StatusOr<SweepSpec> spec = ParseSweepSpec(text, "bad.yaml");
  if (spec.ok()) return "(parsed)";
  EXPECT_EQ(spec.status().code(), absl::StatusCode::kInvalidArgument);
  return std::string(spec.status().message());
}

TEST(ParseSweepSpec, NamesTheFileTheKeyAndTheLineOfABadValue) {
  EXPECT_THAT(ErrorOf("seq: 2^9..2^10", "seq: 2^9..2^x"),
              HasSubstr("bad.yaml: axes.seq (line 4): '2^9..2^x'"));
  EXPECT_THAT(ErrorOf("head-dim: [64, 128]", "head-dim: [64, 0]"),
              HasSubstr("axes.head-dim (line 5)"));
  EXPECT_THAT(ErrorOf("causal: both", "causal: maybe"), HasSubstr("axes.causal"));
  EXPECT_THAT(ErrorOf("budget-ms: 200", "budget-ms: -1"),
              HasSubstr("timing.budget-ms (line 10): must be 0 or more"));
  EXPECT_THAT(ErrorOf("dtype: [fp16, bf16]", "dtype: [fp16, int8]"),
              HasSubstr("dtype (line 7): 'int8'"));
  EXPECT_THAT(ErrorOf("seed: 42", "seed: -3"), HasSubstr("seed"));
}

TEST(ParseSweepSpec, NamesAnUnknownKeyAndListsTheKnownOnes) {
  EXPECT_THAT(ErrorOf("seq: 2^9", "sequence: 2^9"),
              HasSubstr("axes.sequence (line 4): is not a field of attention; "
                        "its fields are batch, heads, seq, head-dim, causal"));
  EXPECT_THAT(ErrorOf("budget-ms:", "budget:"),
              HasSubstr("timing.budget (line 10): is not a timing option"));
  EXPECT_THAT(ErrorOf("label:", "labels:"),
              HasSubstr("labels (line 14): is not a key of a sweep spec; the "
                        "keys are op, axes"));
}

TEST(ParseSweepSpec, RefusesAMissingOrUnknownOp) {
  EXPECT_THAT(ErrorOf("op: attention\n", ""), HasSubstr("op: missing"));
  EXPECT_THAT(ErrorOf("op: attention", "op: conv"),
              HasSubstr("op (line 2): names no op; the ops are vector_add, "
                        "attention"));
}

TEST(ParseSweepSpec, RefusesTextThatIsNotYamlNamingTheLine) {
  const auto spec = ParseSweepSpec("op: attention\naxes: {seq: [1, 2\n", "x.json");
  ASSERT_FALSE(spec.ok());
  EXPECT_THAT(spec.status().message(), HasSubstr("x.json: line "));
  EXPECT_THAT(spec.status().message(), HasSubstr("not valid YAML or JSON"));
  EXPECT_THAT(ParseSweepSpec("- a\n- b\n", "list.yaml").status().message(),
              HasSubstr("list.yaml: must be a map of keys"));
  EXPECT_EQ(LoadSweepSpec("/nonexistent/spec.yaml").status().code(), absl::StatusCode::kNotFound);
}

TEST(LoadSweepSpec, ReadsTheExampleInTheRepository) {
  const absl::StatusOr<SweepSpec> spec =
      LoadSweepSpec(KBENCH_SOURCE_DIR "/docs/examples/attention_sweep.yaml");
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_TRUE(ExpandSweep(*spec).ok());
}

// ---- Results file and --resume ---------------------------------------------

// A complete report of `point` with one verified result per variant.
RunReport ReportOf(const v1::RunRequest& point, const std::string& run_id) {
  RunReport report;
  report.request = point;
  report.run_id = run_id;
  std::vector<std::string> variants(point.variants().begin(), point.variants().end());
  if (variants.empty()) variants = {"naive", "fused"};
  for (const std::string& variant : variants) {
    v1::VariantResult& result = report.results.emplace_back();
    result.set_variant(variant);
    result.mutable_stats()->set_median_ms(variant == "naive" ? 2.0 : 1.0);
    result.mutable_verification()->set_passed(true);
  }
  v1::Summary summary;
  summary.set_all_verified(true);
  v1::Speedup* speedup = summary.add_speedups();
  speedup->set_variant(variants.back());
  speedup->set_baseline(variants.front());
  speedup->set_speedup(2.0);
  speedup->set_verdict(v1::VERDICT_FASTER);
  report.summary = summary;
  return report;
}

std::vector<v1::RunRequest> FourPoints(std::vector<std::string> variants) {
  SweepSpec spec = AttentionSpec();
  spec.axes.push_back({&Field("attention", "--causal"), {"false", "true"}});
  spec.variants = std::move(variants);
  return ExpandSweep(spec).value();
}

TEST(ReadSweepFile, FindsThePointsOfACsvFileByProblemDTypeAndVariants) {
  const auto points = FourPoints({"naive", "fused"});
  std::string text = CsvHeader() + "\n";
  text += FormatSweepPoint(ReportOf(points[0], "r0"), SweepFormat::kCsv);
  text += FormatSweepPoint(ReportOf(points[2], "r2"), SweepFormat::kCsv);
  const SweepFile file = ReadSweepFile(text, SweepFormat::kJsonLines, "f.csv").value();
  EXPECT_EQ(file.format, SweepFormat::kCsv);
  EXPECT_FALSE(file.empty);
  EXPECT_EQ(file.valid_bytes, text.size());
  EXPECT_TRUE(file.Contains(points[0]));
  EXPECT_FALSE(file.Contains(points[1]));
  EXPECT_TRUE(file.Contains(points[2]));
  EXPECT_FALSE(file.Contains(points[3]));
  // The same problem with other variants, or another dtype, is not done.
  v1::RunRequest other = points[0];
  other.clear_variants();
  other.add_variants("fused");
  EXPECT_FALSE(file.Contains(other));
  other = points[0];
  other.set_dtype(v1::DTYPE_FP16);
  EXPECT_FALSE(file.Contains(other));
  // fp32 is the unspecified dtype's name.
  other = points[0];
  other.set_dtype(v1::DTYPE_FP32);
  EXPECT_TRUE(file.Contains(other));
}

TEST(ReadSweepFile, FindsThePointsOfAJsonLinesFileAndItsLabel) {
  auto points = FourPoints({});  // every variant the server offers
  points[1].set_label("lab3");
  const std::string text = FormatSweepPoint(ReportOf(points[1], "r1"), SweepFormat::kJsonLines);
  const SweepFile file = ReadSweepFile(text, SweepFormat::kCsv, "f.jsonl").value();
  EXPECT_EQ(file.format, SweepFormat::kJsonLines);
  EXPECT_EQ(file.label, "lab3");
  EXPECT_TRUE(file.Contains(points[1]));
  EXPECT_FALSE(file.Contains(points[0]));
  // A point naming the variants that ran matches too.
  v1::RunRequest named = points[1];
  named.add_variants("naive");
  named.add_variants("fused");
  EXPECT_TRUE(file.Contains(named));
}

TEST(ReadSweepFile, TakesTheWantedFormatForAnEmptyFile) {
  const SweepFile file = ReadSweepFile("", SweepFormat::kJsonLines, "f").value();
  EXPECT_TRUE(file.empty);
  EXPECT_EQ(file.format, SweepFormat::kJsonLines);
}

TEST(ReadSweepFile, LeavesOutAPartialLastLine) {
  const auto points = FourPoints({"naive", "fused"});
  const std::string whole =
      CsvHeader() + "\n" + FormatSweepPoint(ReportOf(points[0], "r0"), SweepFormat::kCsv);
  const std::string text = whole + "r1,attention,fp3";
  const SweepFile file = ReadSweepFile(text, SweepFormat::kCsv, "f").value();
  EXPECT_EQ(file.valid_bytes, whole.size());
  EXPECT_TRUE(file.Contains(points[0]));
}

TEST(ReadSweepFile, SkipsAHeaderRepeatedByAppends) {
  const auto points = FourPoints({"naive", "fused"});
  const std::string text =
      CsvHeader() + "\n" + FormatSweepPoint(ReportOf(points[0], "r0"), SweepFormat::kCsv) +
      CsvHeader() + "\n" + FormatSweepPoint(ReportOf(points[1], "r1"), SweepFormat::kCsv);
  const absl::StatusOr<SweepFile> file = ReadSweepFile(text, SweepFormat::kCsv, "runs.csv");
  ASSERT_TRUE(file.ok()) << file.status();
  EXPECT_TRUE(file->Contains(points[0]));
  EXPECT_TRUE(file->Contains(points[1]));
}

TEST(ReadSweepFile, RefusesAnotherHeaderOrALineOfNeitherFormat) {
  EXPECT_THAT(ReadSweepFile("run_id,op\n", SweepFormat::kCsv, "old.csv").status().message(),
              HasSubstr("old.csv: line 1: is not the CSV header"));
  EXPECT_THAT(ReadSweepFile("{\"a\": 1}\n", SweepFormat::kCsv, "x.jsonl").status().message(),
              HasSubstr("x.jsonl: line 1: is not a point"));
  EXPECT_THAT(ReadSweepFile(CsvHeader() + "\nr1,attention\n", SweepFormat::kCsv, "short.csv")
                  .status()
                  .message(),
              HasSubstr("short.csv: line 2: has 2 fields"));
}

TEST(FormatSweepPoint, WritesCsvRowsWithoutAHeaderOrOneJsonLine) {
  const auto points = FourPoints({"naive", "fused"});
  const RunReport report = ReportOf(points[0], "r0");
  const std::string csv = FormatSweepPoint(report, SweepFormat::kCsv);
  EXPECT_EQ(csv, FormatCsv(report).substr(CsvHeader().size() + 1));
  EXPECT_EQ(FormatSweepPoint(report, SweepFormat::kJsonLines), FormatRunJson(report));
}

// ---- Summary, exit code, progress ------------------------------------------

PointOutcome Outcome(PointOutcome::Result result) {
  PointOutcome outcome;
  outcome.point = "attention seq_len=512, fp32";
  outcome.result = result;
  outcome.error = "invalid request: seq_len too large";
  return outcome;
}

TEST(SweepExitCode, IsZeroOnlyWhenEveryPointVerified) {
  using R = PointOutcome::Result;
  EXPECT_EQ(SweepExitCode({}), ExitCode::kOk);
  EXPECT_EQ(SweepExitCode({Outcome(R::kOk), Outcome(R::kOk)}), ExitCode::kOk);
  EXPECT_EQ(SweepExitCode({Outcome(R::kOk), Outcome(R::kFailedVerification)}),
            ExitCode::kVerificationFailed);
  EXPECT_EQ(SweepExitCode({Outcome(R::kFailed), Outcome(R::kOk)}), ExitCode::kServerError);
  EXPECT_EQ(SweepExitCode({Outcome(R::kFailedVerification), Outcome(R::kFailed)}),
            ExitCode::kServerError);
}

TEST(OutcomeOfReport, TakesTheFastestVerifiedVariantAndItsSpeedup) {
  const auto points = FourPoints({"naive", "fused"});
  const PointOutcome outcome = OutcomeOfReport(ReportOf(points[0], "r0"));
  EXPECT_EQ(outcome.result, PointOutcome::Result::kOk);
  EXPECT_EQ(outcome.best_variant, "fused");
  EXPECT_EQ(outcome.best_median_ms, 1.0);
  EXPECT_THAT(outcome.best_speedup, HasSubstr("2.00x"));
  RunReport wrong = ReportOf(points[0], "r0");
  wrong.results[1].mutable_verification()->set_passed(false);
  wrong.summary->set_all_verified(false);
  const PointOutcome failed = OutcomeOfReport(wrong);
  EXPECT_EQ(failed.result, PointOutcome::Result::kFailedVerification);
  EXPECT_EQ(failed.best_variant, "naive");
  EXPECT_EQ(failed.best_speedup, "baseline");
}

TEST(FormatSweepSummary, TabulatesBestVariantsAndListsFailures) {
  const auto points = FourPoints({"naive", "fused"});
  const std::string text = FormatSweepSummary(
      {OutcomeOfReport(ReportOf(points[0], "r0")), Outcome(PointOutcome::Result::kFailed)}, 3);
  EXPECT_THAT(text, HasSubstr("point"));
  EXPECT_THAT(text, HasSubstr("seq_len=512"));
  EXPECT_THAT(text, HasSubstr("fused"));
  EXPECT_THAT(text, HasSubstr("failed points:\n  attention seq_len=512, fp32: "
                              "invalid request: seq_len too large"));
  EXPECT_THAT(text, HasSubstr("2 points: 1 ok, 0 failed verification, 1 "
                              "failed; 3 skipped (already in the file)"));
}

TEST(FormatSweepSummary, SaysHowManyPointsAnInterruptionLeftOut) {
  const auto points = FourPoints({"naive", "fused"});
  const std::string text = FormatSweepSummary({OutcomeOfReport(ReportOf(points[0], "r0"))}, 0, 3);
  EXPECT_THAT(text, HasSubstr("1 point: 1 ok, 0 failed verification, 0 failed; 3 not run\n"));
}

// A CPU server's offer: attention with naive (fp32) and fused (fp32, head_dim 64).
v1::ServerInfo CpuOffer() {
  v1::ServerInfo info;
  info.set_backend("cpu");
  info.mutable_limits()->set_max_score_elements(uint64_t(1) << 40);
  v1::OpInfo* op = info.add_ops();
  op->set_op("attention");
  op->add_variants("naive");
  op->add_variants("fused");
  op->add_dtypes(v1::DTYPE_FP32);
  v1::VariantInfo* naive = op->add_variant_details();
  naive->set_name("naive");
  naive->add_dtypes(v1::DTYPE_FP32);
  v1::VariantInfo* fused = op->add_variant_details();
  fused->set_name("fused");
  fused->add_dtypes(v1::DTYPE_FP32);
  fused->add_head_dims(64);
  return info;
}

TEST(PreflightSweep, PassesPointsTheServerOffers) {
  EXPECT_TRUE(PreflightSweep(CpuOffer(), FourPoints({"naive", "fused"})).ok());
  EXPECT_TRUE(PreflightSweep(CpuOffer(), FourPoints({})).ok());
}

TEST(PreflightSweep, NamesEachPointThatCannotRunAndWhy) {
  std::vector<v1::RunRequest> points = FourPoints({"naive", "fused"});
  points[1].set_dtype(v1::DTYPE_FP16);
  *points[2].mutable_variants(1) = "flash";
  points[3].mutable_attention()->set_head_dim(128);
  const absl::Status status = PreflightSweep(CpuOffer(), points);
  ASSERT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("3 of the sweep's 4 points cannot run"));
  EXPECT_THAT(status.message(), HasSubstr("variant 'naive' does not run fp16 on this cpu server "
                                          "(it runs fp32)"));
  EXPECT_THAT(status.message(), HasSubstr("variant 'flash' is not one of this server's attention "
                                          "variants (naive, fused)"));
  EXPECT_THAT(status.message(), HasSubstr("head_dim 128 is not supported by fused"));
}

TEST(PreflightSweep, ListsTenPointsAndCountsTheRest) {
  std::vector<v1::RunRequest> points;
  for (int i = 0; i < 4; ++i)
    for (v1::RunRequest point : FourPoints({"naive"})) {
      point.set_dtype(v1::DTYPE_BF16);
      points.push_back(point);
    }
  const absl::Status status = PreflightSweep(CpuOffer(), points);
  EXPECT_THAT(status.message(), HasSubstr("16 of the sweep's 16 points"));
  EXPECT_THAT(status.message(), HasSubstr("  ... and 6 more"));
}

TEST(FormatEta, ReadsAsSecondsMinutesOrHours) {
  EXPECT_EQ(FormatEta(std::chrono::seconds(45)), "45s");
  EXPECT_EQ(FormatEta(std::chrono::seconds(250)), "4m10s");
  EXPECT_EQ(FormatEta(std::chrono::seconds(7380)), "2h03m");
}

TEST(SweepProgress, PrintsALinePerPointWithAnEtaFromThePointsDone) {
  std::ostringstream out;
  auto now = std::chrono::steady_clock::time_point();
  SweepProgress progress(out, /*is_tty=*/false, 5, 1, [&now] { return now; });
  progress.Start("p1");
  now += std::chrono::seconds(10);
  progress.End("ok", false);
  progress.Start("p2");
  now += std::chrono::seconds(10);
  progress.End("failed: x", true);
  EXPECT_THAT(out.str(), HasSubstr("resume: 1 of 5 points already in the file"));
  EXPECT_THAT(out.str(),
              HasSubstr("[2/5] p1: ok, ETA 30s"));  // 3 left, 10 s each
  EXPECT_THAT(out.str(), HasSubstr("[3/5] p2: failed: x, ETA 20s"));
}

TEST(SweepProgress, AnEtaOfPointsUnderASecondIsNotZero) {
  std::ostringstream out;
  auto now = std::chrono::steady_clock::time_point();
  SweepProgress progress(out, /*is_tty=*/false, 4, 0, [&now] { return now; });
  progress.Start("p1");
  now += std::chrono::milliseconds(300);
  progress.End("ok", false);
  EXPECT_THAT(out.str(), HasSubstr("[1/4] p1: ok, ETA 1s"));  // 0.9 s left
}

TEST(SweepProgress, RewritesOneBarOnATerminal) {
  std::ostringstream out;
  SweepProgress progress(out, /*is_tty=*/true, 4, 0);
  progress.Start("p1");
  progress.End("ok", false);
  progress.Finish();
  EXPECT_THAT(out.str(), HasSubstr("\r\033[K[#####...............] 1/4 points"));
  EXPECT_EQ(out.str().back(), '\n');
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
  auto result = ParseCommandLine(static_cast<int>(args.size()), args.data(), out, err);
  return {std::move(result), out.str(), err.str()};
}

TEST(ParseSweepCommandLine, ExpandsAxesGivenAsFlags) {
  Parsed parsed =
      Parse({"sweep", "attention", "--seq", "512,1024,2048,4096", "--head-dim", "64,128", "--dtype",
             "fp16,bf16", "--causal", "both", "--variant", "naive,fused", "--budget-ms", "50",
             "--label", "lab", "--out", "x.csv", "--json"});
  const CommandLine& line = std::get<CommandLine>(parsed.result);
  EXPECT_EQ(line.options.format, OutputFormat::kJson);
  const auto& sweep = std::get<SweepCommand>(line.command);
  EXPECT_EQ(sweep.points.size(), 32u);
  EXPECT_EQ(sweep.label, "lab");
  EXPECT_EQ(sweep.out_path, "x.csv");
  EXPECT_EQ(sweep.points[0].timing().time_budget_ms(), 50);
  EXPECT_THAT(sweep.points[0].variants(), ElementsAre("naive", "fused"));
}

TEST(ParseSweepCommandLine, RefusesBadAxesNamingTheFlagWithExitCode2) {
  Parsed bad = Parse({"sweep", "attention", "--seq", "2^9..2^x"});
  EXPECT_EQ(std::get<ExitCode>(bad.result), ExitCode::kBadArguments);
  EXPECT_THAT(bad.err, HasSubstr("--seq: '2^9..2^x'"));
  Parsed missing = Parse({"sweep", "attention", "--head-dim", "64"});
  EXPECT_EQ(std::get<ExitCode>(missing.result), ExitCode::kBadArguments);
  EXPECT_THAT(missing.err, HasSubstr("--seq: required"));
  // 21 * 9 * 9 * 9 = 15309 points.
  Parsed many = Parse({"sweep", "attention", "--seq", "1..2^20", "--heads", "1..2^8", "--batch",
                       "1..2^8", "--head-dim", "1..2^8"});
  EXPECT_EQ(std::get<ExitCode>(many.result), ExitCode::kBadArguments);
  EXPECT_THAT(many.err, HasSubstr("more than 10000 points"));
}

TEST(ParseSweepCommandLine, WantsEitherAnOpOrASpecAndOneOutputFile) {
  Parsed neither = Parse({"sweep"});
  EXPECT_EQ(std::get<ExitCode>(neither.result), ExitCode::kBadArguments);
  EXPECT_THAT(neither.err, HasSubstr("--spec FILE"));
  Parsed both = Parse({"sweep", "--spec", "s.yaml", "attention", "--seq", "64"});
  EXPECT_EQ(std::get<ExitCode>(both.result), ExitCode::kBadArguments);
  EXPECT_THAT(both.err, HasSubstr("not both"));
  Parsed files = Parse({"sweep", "vector-add", "--n", "64", "--out", "a.csv", "--resume", "b.csv"});
  EXPECT_EQ(std::get<ExitCode>(files.result), ExitCode::kBadArguments);
  EXPECT_THAT(files.err, HasSubstr("--resume"));
  Parsed no_spec = Parse({"sweep", "--spec", "/nonexistent.yaml"});
  EXPECT_EQ(std::get<ExitCode>(no_spec.result), ExitCode::kBadArguments);
  EXPECT_THAT(no_spec.err, HasSubstr("cannot read the sweep spec /nonexistent.yaml"));
}

TEST(ParseSweepCommandLine, TakesTheSpecFilesLabelUnlessLabelIsGiven) {
  const std::string spec = KBENCH_SOURCE_DIR "/docs/examples/attention_sweep.yaml";
  Parsed from_file = Parse({"sweep", "--spec", spec.c_str()});
  const auto& sweep = std::get<SweepCommand>(std::get<CommandLine>(from_file.result).command);
  EXPECT_EQ(sweep.label, LoadSweepSpec(spec)->label);
  EXPECT_FALSE(sweep.points.empty());
  Parsed given = Parse({"sweep", "--spec", spec.c_str(), "--label", "mine"});
  EXPECT_EQ(std::get<SweepCommand>(std::get<CommandLine>(given.result).command).label, "mine");
}

TEST(ParseSweepCommandLine, HelpTeachesAxesResumeAndExitCodes) {
  Parsed help = Parse({"sweep", "--help"});
  EXPECT_EQ(std::get<ExitCode>(help.result), ExitCode::kOk);
  for (const char* text : {"2^9..2^14", "--causal both", "--resume FILE", "--spec", "Exit codes",
                           "some point failed "
                           "verification",
                           "130", "kbench sweep attention"}) {
    EXPECT_THAT(help.out, HasSubstr(text));
  }
  Parsed op_help = Parse({"sweep", "attention", "--help"});
  EXPECT_THAT(op_help.out, HasSubstr("true|false|both"));
  EXPECT_THAT(op_help.out, HasSubstr("--budget-ms"));
}

}  // namespace
}  // namespace kbench::client
