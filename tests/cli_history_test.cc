// `kbench runs`, `kbench show` and `kbench export` as processes against the
// RunHistory service in-process, over a SQLite store seeded with runs:
// run-00 (oldest) .. run-11 (newest), labels lab1 (0-5) and lab2 (6-11),
// the odd ones started on a device and completed with two verified variants
// and their samples.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "grpcpp/grpcpp.h"
#include "server/front/history_service.h"
#include "server/store/run_store.h"
#include "tests/loopback_service.h"
#include "tests/process_helper.h"
#include "tests/run_records.h"
#include "tests/temp_dir.h"

namespace kbench {
namespace {

using ::kbench::testing::ProcessResult;
using ::kbench::testing::RunProcess;
using ::testing::HasSubstr;
using ::testing::Not;
using namespace std::chrono_literals;

constexpr int kRuns = 12;

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream stream(text);
  for (std::string line; std::getline(stream, line);) lines.push_back(line);
  return lines;
}

class HistoryCommands : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<server::store::RunStore>> store =
        server::store::OpenStore(dir_.path() + "/runs.db");
    ASSERT_TRUE(store.ok()) << store.status();
    store_ = *std::move(store);
    for (int i = 0; i < kRuns; ++i) {
      const std::string id = absl::StrFormat("run-%02d", i);
      ASSERT_TRUE(
          store_->Accept(::kbench::testing::AdmittedRun(id, 1000 + i, i < 6 ? "lab1" : "lab2"))
              .ok());
      if (i % 2 == 1) {
        ASSERT_TRUE(store_
                        ->Start(id, ::kbench::testing::TestDevice(),
                                ::kbench::testing::TestStarted(id), 2000 + i)
                        .ok());
        ASSERT_TRUE(store_->Finish(id, ::kbench::testing::FullOutcome(id, 5000)).ok());
      }
    }
    service_ = std::make_unique<server::HistoryService>(*store_);
    server_ = std::make_unique<::kbench::testing::LoopbackService>(service_.get());
    ASSERT_TRUE(server_->ok());
    address_ = server_->Address();
  }

  void TearDown() override { server_.reset(); }

  ProcessResult Kbench(std::vector<std::string> args) {
    args.insert(args.begin(), {KBENCH_CLIENT_BIN, "--server", address_});
    return RunProcess(args, 60s);
  }

  ::kbench::testing::TempDir dir_;
  std::unique_ptr<server::store::RunStore> store_;
  std::unique_ptr<server::HistoryService> service_;
  std::unique_ptr<::kbench::testing::LoopbackService> server_;
  std::string address_;
};

// The run ids in the first column of a table or CSV, header left out.
std::vector<std::string> FirstColumn(const std::string& text) {
  std::vector<std::string> ids;
  std::vector<std::string> lines = Lines(text);
  for (size_t i = 1; i < lines.size(); ++i) {
    ids.push_back(lines[i].substr(0, lines[i].find_first_of(" ,")));
  }
  return ids;
}

std::vector<std::string> NewestFirst(int from, int to) {
  std::vector<std::string> ids;
  for (int i = to - 1; i >= from; --i) {
    ids.push_back(absl::StrFormat("run-%02d", i));
  }
  return ids;
}

TEST_F(HistoryCommands, RunsListsEveryRunNewestFirstWithItsBestVariant) {
  ProcessResult run = Kbench({"runs"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(FirstColumn(run.out), NewestFirst(0, kRuns));
  const std::vector<std::string> lines = Lines(run.out);
  EXPECT_THAT(lines[0], HasSubstr("run"));
  EXPECT_THAT(lines[0], HasSubstr("verified"));
  // run-11 completed: naive and fused tie at 1.25 ms; run-10 is queued.
  EXPECT_THAT(lines[1], HasSubstr("ada"));
  EXPECT_THAT(lines[1], HasSubstr("lab2"));
  EXPECT_THAT(lines[1], HasSubstr("attention batch=2 heads=4 seq_len=1000"));
  EXPECT_THAT(lines[1], HasSubstr("bf16"));
  EXPECT_THAT(lines[1], HasSubstr(" ok "));
  EXPECT_THAT(lines[1], HasSubstr("1.25"));
  EXPECT_THAT(lines[1], HasSubstr("311.5 TFLOP/s"));
  EXPECT_THAT(lines[1], HasSubstr("yes"));
  EXPECT_THAT(lines[2], HasSubstr("queued"));
}

TEST_F(HistoryCommands, RunsFiltersAndStopsAtTheLimitAcrossPages) {
  EXPECT_EQ(FirstColumn(Kbench({"runs", "--label", "lab1"}).out), NewestFirst(0, 6));
  EXPECT_EQ(FirstColumn(Kbench({"runs", "--limit", "3"}).out), NewestFirst(9, kRuns));
  ProcessResult ok = Kbench({"runs", "--status", "ok", "--label", "lab2"});
  EXPECT_EQ(FirstColumn(ok.out), (std::vector<std::string>{"run-11", "run-09", "run-07"}));
  ProcessResult none = Kbench({"runs", "--op", "vector_add"});
  EXPECT_EQ(none.out, "no runs\n");
}

TEST_F(HistoryCommands, RunsPrintsCsvOrJsonLines) {
  ProcessResult csv = Kbench({"runs", "--csv", "--limit", "2"});
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  EXPECT_THAT(Lines(csv.out)[0], HasSubstr("run_id,op,dtype,"));
  EXPECT_EQ(FirstColumn(csv.out), NewestFirst(10, kRuns));
  ProcessResult json = Kbench({"--json", "runs", "--label", "lab1"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const std::vector<std::string> lines = Lines(json.out);
  ASSERT_EQ(lines.size(), 6u);
  const nlohmann::json first = nlohmann::json::parse(lines[0]);
  EXPECT_EQ(first["run_id"], "run-05");
  EXPECT_EQ(first["status"], "RUN_STATUS_OK");
  EXPECT_TRUE(first["samples"].empty());  // ListRuns leaves them out
}

TEST_F(HistoryCommands, ShowPrintsEverythingAndSummarisesTheSamples) {
  ProcessResult run = Kbench({"show", "run-03"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.out, HasSubstr("run run-03: ok"));
  EXPECT_THAT(run.out, HasSubstr("label: lab1"));
  EXPECT_THAT(run.out, HasSubstr("variants naive,fused, seed 1234"));
  EXPECT_THAT(run.out, HasSubstr("device: cuda #0 (NVIDIA H200), copy "
                                 "4238 GB/s, matmul 612.2 TFLOP/s"));
  EXPECT_THAT(run.out, HasSubstr("CUDA events around the kernel"));
  EXPECT_THAT(run.out, HasSubstr("3.50x"));
  EXPECT_THAT(run.out, HasSubstr("naive 3 (min 1.062, median 1.25, max 1.5 ms)"));
  ProcessResult json = Kbench({"show", "run-03", "--json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const nlohmann::json record = nlohmann::json::parse(json.out);
  EXPECT_EQ(record["samples"].size(), 2u);
  EXPECT_EQ(record["samples"][0]["ms"].size(), 3u);
}

TEST_F(HistoryCommands, ShowOfAnUnknownRunSaysSoWithExitCode2) {
  ProcessResult run = Kbench({"show", "run-99"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.err, HasSubstr("has no run 'run-99'"));
  EXPECT_EQ(run.out, "");
}

TEST_F(HistoryCommands, ExportWritesARowPerVariantPerRunAsCsv) {
  ProcessResult run = Kbench({"export", "--csv"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const std::vector<std::string> lines = Lines(run.out);
  // 6 completed runs with 2 variants each, 6 queued runs with one row.
  ASSERT_EQ(lines.size(), 1u + 6 * 2 + 6) << run.out;
  EXPECT_THAT(lines[0], HasSubstr("accepted_unix_ms,accepted,user,peer,label,"
                                  "status,error,backend,device,run_id,"));
  EXPECT_THAT(lines[1], HasSubstr(",lab2,ok,,cuda,NVIDIA H200,run-11,"
                                  "attention,bf16,"));
  EXPECT_THAT(lines[1], HasSubstr(",naive,3,1.25,"));
  EXPECT_THAT(lines[3], HasSubstr(",queued,"));
}

TEST_F(HistoryCommands, ExportWritesJsonLinesWithSamples) {
  ProcessResult run = Kbench({"--json", "export", "--label", "lab2"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const std::vector<std::string> lines = Lines(run.out);
  ASSERT_EQ(lines.size(), 6u);
  EXPECT_EQ(nlohmann::json::parse(lines[0])["samples"].size(), 2u);
}

TEST_F(HistoryCommands, ABadFilterIsRefusedWithExitCode2) {
  ProcessResult status = Kbench({"runs", "--status", "done"});
  EXPECT_EQ(status.exit_code, 2);
  EXPECT_THAT(status.err, HasSubstr("--status: 'done' is not a run status"));
  ProcessResult since = Kbench({"runs", "--since", "yesterday"});
  EXPECT_EQ(since.exit_code, 2);
  EXPECT_THAT(since.err, HasSubstr("--since: 'yesterday' is not a time"));
  ProcessResult order = Kbench({"runs", "--since", "2024-05-02", "--until", "2024-05-01"});
  EXPECT_EQ(order.exit_code, 2);
  EXPECT_THAT(order.err, HasSubstr("refused the filters"));
}

}  // namespace
}  // namespace kbench
