#include "server/http/api_routes.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/descriptor.h"
#include "kernels/common/status_macros.h"
#include "nlohmann/json.hpp"
#include "server/auth/run_access.h"
#include "server/common/echo.h"
#include "server/http/api_params.h"
#include "server/http/api_reply.h"
#include "server/http/assignment_tables.h"
#include "server/http/history_tables.h"
#include "server/http/live_tables.h"
#include "server/http/run_reader.h"
#include "server/http/table.h"
#include "server/run/run_status.h"
#include "server/store/unix_time.h"

namespace kbench::server::http {
namespace {

// The runs of `filter` that `who` may read; PERMISSION_DENIED when the
// filter asks for others'.
absl::StatusOr<RunSet> ReadRunsAs(store::RunStore& store, const identity::Principal& who,
                                  const v1::ListRunsRequest& filter) {
  KBENCH_ASSIGN_OR_RETURN(const v1::ListRunsRequest scoped, auth::ScopeToCaller(who, filter));
  return ReadRuns(store, scoped);
}

// The tallies of the runs of `filter` that `who` may read; PERMISSION_DENIED
// when the filter asks for others'.
absl::StatusOr<store::RunTallies> TallyAs(store::RunStore& store, const identity::Principal& who,
                                          store::TallyBy by, const v1::ListRunsRequest& filter) {
  KBENCH_ASSIGN_OR_RETURN(const v1::ListRunsRequest scoped, auth::ScopeToCaller(who, filter));
  return store.Tally(by, scoped);
}

// An assignment's table endpoint: label (required), format. The store
// picks `view`'s rows among the results `who` may read.
TableEndpoint AssignmentEndpoint(store::RunStore& store, std::string table_name,
                                 store::ResultView view, Table (*build)(const store::ResultRows&)) {
  return
      [&store, table_name = std::move(table_name), view, build](
          const ApiParams& params, const identity::Principal& who) -> absl::StatusOr<TableReply> {
        KBENCH_RETURN_IF_ERROR(params.Only({"label", "format"}));
        KBENCH_ASSIGN_OR_RETURN(const std::string label, params.Required("label"));
        v1::ListRunsRequest filter;
        filter.set_label(label);
        KBENCH_ASSIGN_OR_RETURN(const v1::ListRunsRequest scoped, auth::ScopeToCaller(who, filter));
        KBENCH_ASSIGN_OR_RETURN(const store::ResultRows rows, store.Results(view, scoped));
        return TableReply{build(rows), absl::StrCat(table_name, "-", label)};
      };
}

// The filters of /api/runs as a ListRunsRequest; the store checks them
// further (see AsParameterError).
absl::StatusOr<v1::ListRunsRequest> RunsFilter(const ApiParams& params) {
  KBENCH_RETURN_IF_ERROR(params.Only({"label", "op", "user", "status", "since_unix_ms",
                                      "until_unix_ms", "page_size", "page_token", "format"}));
  v1::ListRunsRequest filter;
  filter.set_label(params.Optional("label"));
  filter.set_op(params.Optional("op"));
  filter.set_user(params.Optional("user"));
  if (const std::string status = params.Optional("status"); !status.empty()) {
    std::optional<v1::RunStatus> parsed = ParseRunStatusName(status);
    if (!parsed || *parsed == v1::RUN_STATUS_UNSPECIFIED) {
      std::vector<std::string> names;
      const google::protobuf::EnumDescriptor& statuses = *v1::RunStatus_descriptor();
      for (int i = 0; i < statuses.value_count(); ++i) {
        const auto value = static_cast<v1::RunStatus>(statuses.value(i)->number());
        if (value != v1::RUN_STATUS_UNSPECIFIED) names.push_back(RunStatusName(value));
      }
      return BadParameter(
          "status", absl::StrCat(Echo(status), " is not one of ", absl::StrJoin(names, ", ")));
    }
    filter.set_status(*parsed);
  }
  constexpr int64_t kMaxUnixMs = int64_t{1} << 53;
  KBENCH_ASSIGN_OR_RETURN(std::optional<int64_t> since,
                          params.Integer("since_unix_ms", 0, kMaxUnixMs));
  KBENCH_ASSIGN_OR_RETURN(std::optional<int64_t> until,
                          params.Integer("until_unix_ms", 0, kMaxUnixMs));
  KBENCH_ASSIGN_OR_RETURN(std::optional<int64_t> page_size,
                          params.Integer("page_size", 0, UINT32_MAX));
  filter.set_since_unix_ms(since.value_or(0));
  filter.set_until_unix_ms(until.value_or(0));
  filter.set_page_size(static_cast<uint32_t>(page_size.value_or(0)));
  filter.set_page_token(params.Optional("page_token"));
  return filter;
}

// The store refuses a filter with INVALID_ARGUMENT "<field>: <why>", and
// the parameters of /api/runs are named as ListRunsRequest's fields: such an
// error becomes a bad parameter of that name.
absl::Status AsParameterError(const absl::Status& status) {
  if (!absl::IsInvalidArgument(status)) return status;
  const absl::string_view message = status.message();
  const size_t colon = message.find(": ");
  if (colon == absl::string_view::npos) return status;
  return BadParameter(message.substr(0, colon), message.substr(colon + 2));
}

}  // namespace

void AddApiRoutes(httplib::Server& server, store::RunStore& store, LiveProvider live,
                  CallerOf caller) {
  ServeTable(server, "/api/labels", caller,
             [&store](const ApiParams& params,
                      const identity::Principal& who) -> absl::StatusOr<TableReply> {
               KBENCH_RETURN_IF_ERROR(params.Only({"format"}));
               KBENCH_ASSIGN_OR_RETURN(
                   const store::RunTallies labels,
                   TallyAs(store, who, store::TallyBy::kLabel, v1::ListRunsRequest()));
               return TableReply{LabelsTable(labels), "labels"};
             });
  ServeTable(server, "/api/learners", caller,
             [&store](const ApiParams& params,
                      const identity::Principal& who) -> absl::StatusOr<TableReply> {
               KBENCH_RETURN_IF_ERROR(params.Only({"label", "format"}));
               v1::ListRunsRequest filter;
               filter.set_label(params.Optional("label"));
               KBENCH_ASSIGN_OR_RETURN(const store::RunTallies learners,
                                       TallyAs(store, who, store::TallyBy::kLearner, filter));
               return TableReply{
                   LearnersTable(learners),
                   filter.label().empty() ? "learners" : absl::StrCat("learners-", filter.label())};
             });
  using store::ResultView;
  ServeTable(server, "/api/assignment/best", caller,
             AssignmentEndpoint(store, "best", ResultView::kBestVerified, BestResultsTable));
  ServeTable(server, "/api/assignment/speedups", caller,
             AssignmentEndpoint(store, "speedups", ResultView::kBestSpeedups, SpeedupsTable));
  ServeTable(server, "/api/assignment/throughput", caller,
             AssignmentEndpoint(store, "throughput", ResultView::kVerified, ThroughputPointsTable));
  ServeTable(server, "/api/assignment/failures", caller,
             AssignmentEndpoint(store, "failures", ResultView::kFailedVerification,
                                FailedVerificationsTable));
  ServeTable(
      server, "/api/learner", caller,
      [&store](const ApiParams& params,
               const identity::Principal& who) -> absl::StatusOr<TableReply> {
        KBENCH_RETURN_IF_ERROR(params.Only({"learner", "label", "format"}));
        KBENCH_ASSIGN_OR_RETURN(const std::string learner, params.Required("learner"));
        v1::ListRunsRequest filter;
        filter.set_label(params.Optional("label"));
        // A learner asking for another learner is refused, not shown nothing.
        if (who.role == identity::Role::kLearner) filter.set_user(learner);
        KBENCH_ASSIGN_OR_RETURN(const RunSet runs, ReadRunsAs(store, who, filter));
        return TableReply{LearnerHistoryTable(runs, learner), absl::StrCat("learner-", learner)};
      });
  ServeTable(
      server, "/api/runs", caller,
      [&store](const ApiParams& params,
               const identity::Principal& who) -> absl::StatusOr<TableReply> {
        KBENCH_ASSIGN_OR_RETURN(const v1::ListRunsRequest asked, RunsFilter(params));
        KBENCH_ASSIGN_OR_RETURN(const v1::ListRunsRequest filter, auth::ScopeToCaller(who, asked));
        absl::StatusOr<v1::ListRunsResponse> page = store.List(filter, store::Samples::kOmit);
        KBENCH_RETURN_IF_ERROR(AsParameterError(page.status()));
        return TableReply{RunsTable(*page), "runs", {{"next_page_token", page->next_page_token()}}};
      });
  ServeTable(server, "/api/live/runs", caller,
             [live](const ApiParams& params,
                    const identity::Principal& who) -> absl::StatusOr<TableReply> {
               KBENCH_RETURN_IF_ERROR(params.Only({"format"}));
               LiveState state = live();
               const auto hidden = [&](const LiveRun& run) {
                 return !auth::CheckRunAccess(who, run.run_id, run.user, run.cohort).ok();
               };
               std::erase_if(state.running, hidden);
               std::erase_if(state.waiting, hidden);
               return TableReply{LiveRunsTable(state), "live-runs"};
             });
  ServeTable(server, "/api/live/devices", caller,
             [&store, live](const ApiParams& params,
                            const identity::Principal&) -> absl::StatusOr<TableReply> {
               KBENCH_RETURN_IF_ERROR(params.Only({"format"}));
               // The newest runs, to find each device's last clocks.
               constexpr size_t kRecentRuns = 100;
               KBENCH_ASSIGN_OR_RETURN(const RunSet recent,
                                       ReadRuns(store, v1::ListRunsRequest(), kRecentRuns));
               return TableReply{DevicesTable(live(), recent), "devices"};
             });
  server.Get("/api/live",
             [live, caller](const httplib::Request& request, httplib::Response& response) {
               const absl::StatusOr<identity::Principal> who = caller(request);
               if (!who.ok()) return ReplyError(response, who.status());
               if (absl::Status only = ApiParams(request).Only({}); !only.ok()) {
                 return ReplyError(response, only);
               }
               const LiveState state = live();
               ReplyJson(response, 200,
                         {{"user", who->user},  // "" on a server without authentication
                          {"role", std::string(identity::RoleName(who->role))},
                          {"version", state.info.version()},
                          {"backend", state.info.backend()},
                          {"devices", state.info.devices_size()},
                          {"running", state.info.running()},
                          {"queued", state.info.queued()},
                          {"now_unix_ms", store::NowUnixMs()}});
             });
  server.Get(R"(/api/.*)", [](const httplib::Request& request, httplib::Response& response) {
    ReplyError(response, absl::NotFoundError(absl::StrCat("no endpoint ", Echo(request.path),
                                                          "; see docs/API.md")));
  });
}

}  // namespace kbench::server::http
