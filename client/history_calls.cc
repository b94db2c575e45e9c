#include "client/history_calls.h"

#include <algorithm>
#include <memory>

#include "kbench/v1/history.grpc.pb.h"

namespace kbench::client {
namespace {

// The most runs ListRuns returns in one page (history.proto).
constexpr size_t kMaxPageSize = 500;

}  // namespace

CallResult ListRuns(const CallOptions& options, InterruptWatcher& watcher,
                    const v1::ListRunsRequest& filters, size_t limit,
                    std::vector<v1::RunRecord>& runs) {
  std::shared_ptr<grpc::Channel> channel;
  if (grpc::Status status = ConnectToServer(options, watcher, channel); !status.ok()) {
    return {status, CallStage::kConnecting};
  }
  auto stub = v1::RunHistory::NewStub(channel);
  v1::ListRunsRequest request = filters;
  request.clear_page_token();
  size_t received = 0;
  do {
    const size_t wanted = limit == 0 ? kMaxPageSize : limit - received;
    request.set_page_size(static_cast<uint32_t>(std::min(wanted, kMaxPageSize)));
    grpc::ClientContext context;
    PrepareContext(options, context);
    InterruptWatcher::Watch watch(watcher, &context);
    v1::ListRunsResponse response;
    const grpc::Status status = stub->ListRuns(&context, request, &response);
    if (!status.ok()) return {status, CallStage::kCalling};
    for (v1::RunRecord& run : *response.mutable_runs()) {
      if (limit != 0 && received == limit) break;
      runs.push_back(std::move(run));
      ++received;
    }
    request.set_page_token(response.next_page_token());
  } while (!request.page_token().empty() && (limit == 0 || received < limit));
  return {grpc::Status::OK, CallStage::kCalling};
}

CallResult GetRun(const CallOptions& options, InterruptWatcher& watcher, const std::string& run_id,
                  v1::RunRecord& run) {
  std::shared_ptr<grpc::Channel> channel;
  if (grpc::Status status = ConnectToServer(options, watcher, channel); !status.ok()) {
    return {status, CallStage::kConnecting};
  }
  auto stub = v1::RunHistory::NewStub(channel);
  grpc::ClientContext context;
  PrepareContext(options, context);
  InterruptWatcher::Watch watch(watcher, &context);
  v1::GetRunRequest request;
  request.set_run_id(run_id);
  return {stub->GetRun(&context, request, &run), CallStage::kCalling};
}

CallResult ExportRuns(const CallOptions& options, InterruptWatcher& watcher,
                      const v1::ListRunsRequest& filters,
                      const std::function<void(const v1::RunRecord&)>& on_run) {
  std::shared_ptr<grpc::Channel> channel;
  if (grpc::Status status = ConnectToServer(options, watcher, channel); !status.ok()) {
    return {status, CallStage::kConnecting};
  }
  auto stub = v1::RunHistory::NewStub(channel);
  grpc::ClientContext context;
  PrepareContext(options, context);
  InterruptWatcher::Watch watch(watcher, &context);
  std::unique_ptr<grpc::ClientReader<v1::RunRecord>> reader = stub->ExportRuns(&context, filters);
  CallStage stage = CallStage::kCalling;
  v1::RunRecord run;
  while (reader->Read(&run)) {
    stage = CallStage::kStreaming;
    on_run(run);
  }
  return {reader->Finish(), stage};
}

std::string DescribeHistoryFailure(const grpc::Status& status, std::string_view server,
                                   double timeout_s, CallStage stage, std::string_view run_id) {
  const std::string where(server);
  switch (status.error_code()) {
    case grpc::StatusCode::NOT_FOUND:
      if (!run_id.empty()) {
        return "kbench: the server at " + where + " has no run '" + std::string(run_id) +
               "' (kbench runs lists the runs it has)";
      }
      break;
    case grpc::StatusCode::UNIMPLEMENTED:
      return "kbench: the server at " + where +
             " does not offer run history (it runs without a results store, "
             "or is older than this kbench)";
    case grpc::StatusCode::INVALID_ARGUMENT:
      return "kbench: the server refused the filters: " + status.error_message();
    default:
      break;
  }
  return DescribeRpcFailure(status, server, timeout_s, stage);
}

ExitCode ExitCodeForHistoryStatus(grpc::StatusCode code) {
  return code == grpc::StatusCode::NOT_FOUND ? ExitCode::kBadArguments : ExitCodeForStatus(code);
}

}  // namespace kbench::client
