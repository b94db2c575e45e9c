// The calls the CLI makes to a server's run history (kbench/v1/
// history.proto: ListRuns, GetRun, ExportRuns), over a blocking stub, and
// how their failures read.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "client/server_calls.h"
#include "kbench/v1/history.pb.h"

namespace kbench::client {

// Pages through ListRuns with `filters` (page_token ignored) until `limit`
// runs (0: all of them) or the last page; appends them to `runs`, newest
// first. Pages ask for at most 500 runs, and no more than are still wanted.
CallResult ListRuns(const CallOptions& options, InterruptWatcher& watcher,
                    const v1::ListRunsRequest& filters, size_t limit,
                    std::vector<v1::RunRecord>& runs);

// One run, samples included.
CallResult GetRun(const CallOptions& options, InterruptWatcher& watcher, const std::string& run_id,
                  v1::RunRecord& run);

// Streams every run matching `filters` to `on_run` as it arrives, on the
// calling thread.
CallResult ExportRuns(const CallOptions& options, InterruptWatcher& watcher,
                      const v1::ListRunsRequest& filters,
                      const std::function<void(const v1::RunRecord&)>& on_run);

// One line for stderr, starting "kbench: ", for a failed history call:
// NOT_FOUND says the server has no run `run_id` (when one was asked for);
// UNIMPLEMENTED that the server offers no history; other codes (among them
// PERMISSION_DENIED, whose message says which runs the caller may read) as
// DescribeRpcFailure says them.
std::string DescribeHistoryFailure(const grpc::Status& status, std::string_view server,
                                   double timeout_s, CallStage stage, std::string_view run_id = "");

// kBadArguments for NOT_FOUND (an unknown run id) and INVALID_ARGUMENT (a
// filter the server refuses); else as ExitCodeForStatus.
ExitCode ExitCodeForHistoryStatus(grpc::StatusCode code);

}  // namespace kbench::client
