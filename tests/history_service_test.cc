// HistoryService in-process, over a loopback gRPC port and a SQLite store
// seeded with runs.
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "kbench/v1/history.grpc.pb.h"
#include "server/front/history_service.h"
#include "server/store/run_store.h"
#include "tests/loopback_service.h"
#include "tests/run_records.h"
#include "tests/temp_dir.h"

namespace kbench::server {
namespace {

using ::kbench::testing::AdmittedRun;
using ::kbench::testing::FullOutcome;

constexpr int kRuns = 12;

class HistoryServiceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<store::RunStore>> store =
        store::OpenStore(dir_.path() + "/runs.db");
    ASSERT_TRUE(store.ok()) << store.status();
    store_ = *std::move(store);
    // run-00 (oldest) .. run-11 (newest); the odd ones completed, samples
    // included.
    for (int i = 0; i < kRuns; ++i) {
      const std::string id = absl::StrFormat("run-%02d", i);
      ASSERT_TRUE(store_->Accept(AdmittedRun(id, 1000 + i, i < 6 ? "lab1" : "lab2")).ok());
      if (i % 2 == 1) {
        ASSERT_TRUE(store_->Finish(id, FullOutcome(id, 5000)).ok());
      }
    }
    service_ = std::make_unique<HistoryService>(*store_);
    server_ = std::make_unique<::kbench::testing::LoopbackService>(service_.get());
    ASSERT_TRUE(server_->ok());
    stub_ = v1::RunHistory::NewStub(server_->Channel());
  }

  void TearDown() override { server_.reset(); }

  std::vector<std::string> Export(const v1::ListRunsRequest& request, grpc::Status& status,
                                  int* with_samples = nullptr) {
    grpc::ClientContext context;
    std::unique_ptr<grpc::ClientReader<v1::RunRecord>> reader =
        stub_->ExportRuns(&context, request);
    std::vector<std::string> ids;
    v1::RunRecord run;
    while (reader->Read(&run)) {
      ids.push_back(run.run_id());
      if (with_samples != nullptr && run.samples_size() > 0) ++*with_samples;
    }
    status = reader->Finish();
    return ids;
  }

  ::kbench::testing::TempDir dir_;
  std::unique_ptr<store::RunStore> store_;
  std::unique_ptr<HistoryService> service_;
  std::unique_ptr<::kbench::testing::LoopbackService> server_;
  std::unique_ptr<v1::RunHistory::Stub> stub_;
};

std::vector<std::string> NewestFirst(int from, int to) {
  std::vector<std::string> ids;
  for (int i = to - 1; i >= from; --i) ids.push_back(absl::StrFormat("run-%02d", i));
  return ids;
}

TEST_F(HistoryServiceTest, ListRunsPagesThroughEveryRunWithoutSamples) {
  v1::ListRunsRequest request;
  request.set_page_size(5);
  std::vector<std::string> ids;
  int pages = 0;
  do {
    grpc::ClientContext context;
    v1::ListRunsResponse response;
    const grpc::Status status = stub_->ListRuns(&context, request, &response);
    ASSERT_TRUE(status.ok()) << status.error_message();
    ++pages;
    for (const v1::RunRecord& run : response.runs()) {
      ids.push_back(run.run_id());
      EXPECT_EQ(run.samples_size(), 0);
    }
    request.set_page_token(response.next_page_token());
  } while (!request.page_token().empty());
  EXPECT_EQ(pages, 3);
  EXPECT_EQ(ids, NewestFirst(0, kRuns));
}

TEST_F(HistoryServiceTest, ListRunsFilters) {
  v1::ListRunsRequest request;
  request.set_label("lab2");
  request.set_status(v1::RUN_STATUS_QUEUED);
  grpc::ClientContext context;
  v1::ListRunsResponse response;
  ASSERT_TRUE(stub_->ListRuns(&context, request, &response).ok());
  std::vector<std::string> ids;
  for (const v1::RunRecord& run : response.runs()) ids.push_back(run.run_id());
  EXPECT_EQ(ids, (std::vector<std::string>{"run-10", "run-08", "run-06"}));
  EXPECT_EQ(response.next_page_token(), "");
}

TEST_F(HistoryServiceTest, GetRunReturnsEverythingWithSamples) {
  grpc::ClientContext context;
  v1::GetRunRequest request;
  request.set_run_id("run-03");
  v1::RunRecord run;
  const grpc::Status status = stub_->GetRun(&context, request, &run);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(run.status(), v1::RUN_STATUS_OK);
  EXPECT_EQ(run.samples_size(), 2);
  EXPECT_EQ(run.results_size(), 2);
  EXPECT_TRUE(run.summary().all_verified());
}

TEST_F(HistoryServiceTest, GetRunOfAnUnknownIdIsNotFoundNamingIt) {
  grpc::ClientContext context;
  v1::GetRunRequest request;
  request.set_run_id("run-99");
  v1::RunRecord run;
  const grpc::Status status = stub_->GetRun(&context, request, &run);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_NE(status.error_message().find("run-99"), std::string::npos);
}

TEST_F(HistoryServiceTest, ExportRunsStreamsEveryMatchAcrossReadsWithSamples) {
  v1::ListRunsRequest request;
  request.set_page_size(2);  // several reads from the store
  grpc::Status status;
  int with_samples = 0;
  EXPECT_EQ(Export(request, status, &with_samples), NewestFirst(0, kRuns));
  EXPECT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(with_samples, kRuns / 2);
  request.set_label("lab1");
  EXPECT_EQ(Export(request, status), NewestFirst(0, 6));
  EXPECT_TRUE(status.ok()) << status.error_message();
}

TEST_F(HistoryServiceTest, BadFiltersAreInvalidArgumentNamingTheField) {
  v1::ListRunsRequest request;
  request.set_page_size(1000);
  grpc::ClientContext context;
  v1::ListRunsResponse response;
  grpc::Status status = stub_->ListRuns(&context, request, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(status.error_message().find("page_size"), std::string::npos);

  request.Clear();
  request.set_page_token("garbage");
  EXPECT_TRUE(Export(request, status).empty());
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(status.error_message().find("page_token"), std::string::npos);
}

TEST(IsLoopbackPeer, AcceptsThisMachineOnly) {
  EXPECT_TRUE(IsLoopbackPeer("ipv4:127.0.0.1:50312"));
  EXPECT_TRUE(IsLoopbackPeer("ipv4:127.8.9.10:1"));
  EXPECT_TRUE(IsLoopbackPeer("ipv6:[::1]:50312"));
  EXPECT_TRUE(IsLoopbackPeer("ipv6:[::ffff:127.0.0.1]:50312"));
  EXPECT_TRUE(IsLoopbackPeer("unix:/run/kbench.sock"));
  EXPECT_FALSE(IsLoopbackPeer("ipv4:10.0.0.7:50312"));
  EXPECT_FALSE(IsLoopbackPeer("ipv4:128.0.0.1:50312"));
  EXPECT_FALSE(IsLoopbackPeer("ipv6:[::2]:50312"));
  EXPECT_FALSE(IsLoopbackPeer("ipv6:[2001:db8::1]:50312"));
}

}  // namespace
}  // namespace kbench::server
