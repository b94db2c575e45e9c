#include "server/http/assignment_routes.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "google/protobuf/util/json_util.h"
#include "kernels/common/status_macros.h"

namespace kbench::server::http {
namespace {

Cell OrNull(double value) { return value > 0 ? Cell(value) : Cell(); }
Cell OrNull(int64_t value) { return value > 0 ? Cell(value) : Cell(); }

Table AssignmentsTable(const std::vector<v1::Assignment>& assignments) {
  Table table({"name", "cohort", "title", "op", "problems", "baselines", "opens_unix_ms",
               "due_unix_ms", "submissions_per_hour", "show_names", "closed"});
  for (const v1::Assignment& a : assignments)
    table.rows.push_back({a.name(), a.cohort(), a.title(), a.op(), int64_t{a.problems_size()},
                          absl::StrJoin(a.baselines(), ","), OrNull(a.opens_unix_ms()),
                          OrNull(a.due_unix_ms()), int64_t{a.submissions_per_hour()},
                          a.show_names(), a.closed()});
  return table;
}

Table LeaderboardTable(const v1::Leaderboard& board) {
  std::vector<std::string> columns = {
      "rank", "tied", "learner", "you", "score_ms", "score_ci_low_ms", "score_ci_high_ms"};
  for (const std::string& baseline : board.assignment().baselines())
    columns.push_back("speedup_" + baseline);
  for (const char* column :
       {"attempts", "last_attempt_unix_ms", "late", "submission_id", "devices"})
    columns.push_back(column);
  Table table(std::move(columns));
  for (const v1::LeaderboardEntry& e : board.entries()) {
    std::vector<Cell> row = {int64_t{e.rank()},
                             e.tied(),
                             e.user().empty() ? Cell() : Cell(e.user()),
                             e.you(),
                             e.best().score_ms(),
                             e.best().score_ci_low_ms(),
                             e.best().score_ci_high_ms()};
    for (const std::string& baseline : board.assignment().baselines()) {
      Cell speedup;
      for (const v1::ScoreSpeedup& s : e.best().speedups())
        if (s.baseline() == baseline) speedup = s.speedup();
      row.push_back(speedup);
    }
    const v1::Submission& best = e.best().submission();
    row.push_back(int64_t{e.attempts()});
    row.push_back(e.last_attempt_unix_ms());
    row.push_back(best.late());
    row.push_back(best.submission_id().empty() ? Cell() : Cell(best.submission_id()));
    row.push_back(absl::StrJoin(e.best().devices(), ", "));
    table.rows.push_back(std::move(row));
  }
  return table;
}

// The gradebook: one row per learner, one column per assignment holding
// the best score in ms, or "failing" or "not started".
Table RosterTable(const v1::Roster& roster) {
  std::vector<std::string> columns = {"learner"};
  for (const std::string& assignment : roster.assignments()) columns.push_back(assignment);
  Table table(std::move(columns));
  for (const v1::RosterRow& r : roster.rows()) {
    std::vector<Cell> row = {r.user()};
    for (const v1::RosterCell& cell : r.cells())
      row.push_back(cell.standing() == v1::STANDING_COUNTING       ? Cell(cell.score_ms())
                    : cell.standing() == v1::STANDING_ONLY_FAILING ? Cell("failing")
                                                                   : Cell("not started"));
    table.rows.push_back(std::move(row));
  }
  return table;
}

// Each learner's standing with its details, for the page (JSON beside the
// gradebook table): learner -> assignment -> {standing, rank, attempts,
// last_attempt_unix_ms, why_not}.
nlohmann::json RosterDetails(const v1::Roster& roster) {
  nlohmann::json details = nlohmann::json::object();
  for (const v1::RosterRow& r : roster.rows())
    for (const v1::RosterCell& cell : r.cells())
      details[r.user()][cell.assignment()] = {
          {"standing", cell.standing() == v1::STANDING_COUNTING       ? "counting"
                       : cell.standing() == v1::STANDING_ONLY_FAILING ? "failing"
                                                                      : "not started"},
          {"rank", cell.rank()},
          {"score_ms", cell.score_ms()},
          {"attempts", cell.attempts()},
          {"last_attempt_unix_ms", cell.last_attempt_unix_ms()},
          {"why_not", cell.why_not()}};
  return details;
}

Table SubmissionsTable(const std::vector<v1::SubmissionReport>& reports) {
  Table table({"submission_id", "learner", "submitted_unix_ms", "late", "kernel", "counts",
               "score_ms", "score_ci_low_ms", "score_ci_high_ms", "why_not", "rerun_of",
               "devices"});
  for (const v1::SubmissionReport& r : reports) {
    const v1::Submission& s = r.submission();
    table.rows.push_back({s.submission_id(), s.user(), s.submitted_unix_ms(), s.late(),
                          s.kernel().name(), r.counts(), OrNull(r.score_ms()),
                          OrNull(r.score_ci_low_ms()), OrNull(r.score_ci_high_ms()), r.why_not(),
                          s.rerun_of().empty() ? Cell() : Cell(s.rerun_of()),
                          absl::StrJoin(r.devices(), ", ")});
  }
  return table;
}

nlohmann::json ProtoJson(const google::protobuf::Message& message) {
  std::string text;
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  (void)google::protobuf::util::MessageToJsonString(message, &text, options);
  return nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
}

}  // namespace

void AddAssignmentRoutes(httplib::Server& server, AssignmentBook& book, const CallerOf& caller) {
  ServeTable(server, "/api/assignments", caller,
             [&book](const ApiParams& params,
                     const identity::Principal& who) -> absl::StatusOr<TableReply> {
               KBENCH_RETURN_IF_ERROR(params.Only({"cohort", "format"}));
               KBENCH_ASSIGN_OR_RETURN(std::vector<v1::Assignment> assignments,
                                       book.List(who, params.Optional("cohort")));
               return TableReply{AssignmentsTable(assignments), "assignments"};
             });
  ServeTable(server, "/api/assignments/leaderboard", caller,
             [&book](const ApiParams& params,
                     const identity::Principal& who) -> absl::StatusOr<TableReply> {
               KBENCH_RETURN_IF_ERROR(params.Only({"assignment", "format"}));
               KBENCH_ASSIGN_OR_RETURN(const std::string name, params.Required("assignment"));
               KBENCH_ASSIGN_OR_RETURN(v1::Leaderboard board, book.Leaderboard(who, name));
               return TableReply{LeaderboardTable(board),
                                 absl::StrCat("leaderboard-", name),
                                 {{"without_counting", board.without_counting()},
                                  {"title", board.assignment().title()}}};
             });
  ServeTable(server, "/api/assignments/roster", caller,
             [&book](const ApiParams& params,
                     const identity::Principal& who) -> absl::StatusOr<TableReply> {
               KBENCH_RETURN_IF_ERROR(params.Only({"cohort", "format"}));
               KBENCH_ASSIGN_OR_RETURN(v1::Roster roster,
                                       book.Roster(who, params.Optional("cohort")));
               return TableReply{RosterTable(roster),
                                 absl::StrCat("gradebook-", roster.cohort()),
                                 {{"cohort", roster.cohort()}, {"details", RosterDetails(roster)}}};
             });
  ServeTable(server, "/api/assignments/submissions", caller,
             [&book](const ApiParams& params,
                     const identity::Principal& who) -> absl::StatusOr<TableReply> {
               KBENCH_RETURN_IF_ERROR(params.Only({"assignment", "learner", "format"}));
               KBENCH_ASSIGN_OR_RETURN(const std::string name, params.Required("assignment"));
               KBENCH_ASSIGN_OR_RETURN(std::vector<v1::SubmissionReport> reports,
                                       book.Submissions(who, name, params.Optional("learner")));
               return TableReply{SubmissionsTable(reports), absl::StrCat("submissions-", name)};
             });
  server.Get("/api/assignments/submission",
             [&book, caller](const httplib::Request& request, httplib::Response& response) {
               const absl::StatusOr<identity::Principal> who = caller(request);
               if (!who.ok()) return ReplyError(response, who.status());
               const ApiParams params(request);
               if (absl::Status only = params.Only({"id"}); !only.ok())
                 return ReplyError(response, only);
               const absl::StatusOr<std::string> id = params.Required("id");
               if (!id.ok()) return ReplyError(response, id.status());
               absl::StatusOr<v1::SubmissionReport> report = book.Report(*who, *id);
               if (!report.ok()) return ReplyError(response, report.status());
               // The learner's submission before this one, for the diff.
               absl::StatusOr<std::optional<v1::Submission>> before =
                   book.Previous(*who, report->submission());
               if (!before.ok()) return ReplyError(response, before.status());
               nlohmann::json previous = nullptr;
               if (*before)
                 previous = {{"submission_id", (*before)->submission_id()},
                             {"submitted_unix_ms", (*before)->submitted_unix_ms()},
                             {"source", (*before)->kernel().source()}};
               ReplyJson(response, 200, {{"report", ProtoJson(*report)}, {"previous", previous}});
             });
}

}  // namespace kbench::server::http
