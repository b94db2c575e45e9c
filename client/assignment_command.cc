#include "client/assignment_command.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <memory>
#include <optional>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "client/assignment_file.h"
#include "client/call_failure.h"
#include "client/csv_format.h"
#include "client/json_format.h"
#include "client/progress_reporter.h"
#include "client/refusal.h"
#include "client/result_text.h"
#include "client/time_values.h"
#include "kbench/v1/assignment.grpc.pb.h"
#include "proto/ops/registry.h"

namespace kbench::client {
namespace {

// The longest a submission waits for the learner's quota between its runs.
constexpr double kMaxQuotaWaitSeconds = 120;

// Makes one unary call of the Assignments service: `call(stub, context)`.
template <typename Call>
CallResult CallAssignments(const CallOptions& options, InterruptWatcher& watcher, Call call) {
  CallResult result;
  std::shared_ptr<grpc::Channel> channel;
  result.status = ConnectToServer(options, watcher, channel);
  if (!result.status.ok()) return result;
  auto stub = v1::Assignments::NewStub(channel);
  grpc::ClientContext context;
  PrepareContext(options, context);
  InterruptWatcher::Watch watch(watcher, &context);
  result.stage = CallStage::kCalling;
  result.status = call(*stub, context);
  return result;
}

std::string Score(const v1::SubmissionReport& report) {
  return absl::StrCat(FormatMeasured(report.score_ms()), " ms [",
                      FormatMeasured(report.score_ci_low_ms()), ", ",
                      FormatMeasured(report.score_ci_high_ms()), "]");
}

std::string Speedups(const v1::SubmissionReport& report) {
  std::vector<std::string> parts;
  for (const v1::ScoreSpeedup& speedup : report.speedups())
    parts.push_back(
        absl::StrCat(FormatSignificant(speedup.speedup(), 3), "x vs ", speedup.baseline()));
  return parts.empty() ? "-" : absl::StrJoin(parts, ", ");
}

// A problem's speedups, each against its built-in: "4.00x [3.9, 4.1]
// faster vs naive, ...".
std::string Speedups(const v1::ProblemResult& problem) {
  std::vector<std::string> parts;
  for (const v1::Speedup& speedup : problem.speedups())
    parts.push_back(absl::StrCat(FormatSpeedup(speedup), " vs ", speedup.baseline()));
  return parts.empty() ? "-" : absl::StrJoin(parts, ", ");
}

std::string Time(int64_t unix_ms) { return unix_ms == 0 ? "-" : FormatLocalTime(unix_ms); }

std::string StandingText(const v1::RosterCell& cell) {
  switch (cell.standing()) {
    case v1::STANDING_COUNTING:
      return absl::StrCat("#", cell.rank(), " ", FormatMeasured(cell.score_ms()), " ms");
    case v1::STANDING_ONLY_FAILING:
      return "failing";
    default:
      return "-";
  }
}

void Print(const GlobalOptions& options, const google::protobuf::Message& message,
           const std::string& table) {
  std::cout << (options.format == OutputFormat::kJson ? FormatMessageJson(message) : table)
            << std::flush;
}

// Waits `seconds` unless interrupted first; false when interrupted.
bool Wait(double seconds, const InterruptWatcher& watcher) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < until) {
    if (watcher.interrupted()) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return true;
}

// Whether a problem of the report has a run the store holds as queued or
// running.
bool InFlight(const v1::SubmissionReport& report) {
  for (const v1::ProblemResult& problem : report.problems())
    if (problem.status() == v1::RUN_STATUS_QUEUED || problem.status() == v1::RUN_STATUS_RUNNING)
      return true;
  return false;
}

// Runs each of the submission's runs; a run that fails is reported on
// stderr and left for the report to show. Returns false when interrupted.
bool RunSubmission(const GlobalOptions& options, const CallOptions& call, InterruptWatcher& watcher,
                   const v1::Submission& submission) {
  for (int i = 0; i < submission.runs_size(); ++i) {
    const v1::RunRequest& run = submission.runs(i);
    if (!options.quiet)
      std::cerr << "kbench: problem " << i + 1 << " of " << submission.runs_size() << ": "
                << proto::ops::DescribeProblemOf(run) << std::endl;
    for (;;) {
      std::optional<ProgressReporter> progress;
      if (!options.quiet) progress.emplace(std::cerr, isatty(STDERR_FILENO) == 1);
      const CallResult result = RunBenchmark(call, run, watcher, [&](const v1::RunEvent& event) {
        if (progress) progress->OnEvent(event);
      });
      if (progress) progress->Finish();
      if (watcher.interrupted()) return false;
      if (result.status.ok()) break;
      const std::optional<double> wait = QuotaWaitSeconds(result.status);
      if (wait && *wait <= kMaxQuotaWaitSeconds) {
        std::cerr << "kbench: over your own quota; waiting " << int(*wait + 1)
                  << " s to run problem " << i + 1 << std::endl;
        if (!Wait(*wait + 1, watcher)) return false;
        continue;
      }
      std::cerr << DescribeRpcFailure(result.status, options.server, options.timeout_s,
                                      result.stage)
                << std::endl;
      break;
    }
  }
  return true;
}

// Waits for the report of `id` once none of its runs is in flight.
CallResult FinalReport(const CallOptions& call, InterruptWatcher& watcher, const std::string& id,
                       v1::SubmissionReport& report) {
  v1::SubmissionId request;
  request.set_submission_id(id);
  CallResult result;
  // The server records a run's end just after its stream ends: a report
  // read at once may still see the last run in flight.
  for (int attempt = 0; attempt < 50; ++attempt) {
    result = CallAssignments(call, watcher, [&](auto& stub, auto& context) {
      return stub.GetSubmission(&context, request, &report);
    });
    if (!result.status.ok() || !InFlight(report) || !Wait(0.1, watcher)) break;
  }
  return result;
}

ExitCode Rerun(const GlobalOptions& options, const CallOptions& call, InterruptWatcher& watcher,
               const AssignmentRerunCommand& command) {
  v1::RerunRequest request;
  request.set_assignment(command.name);
  request.set_top(command.top);
  v1::RerunPlan plan;
  CallResult result = CallAssignments(call, watcher, [&](auto& stub, auto& context) {
    return stub.Rerun(&context, request, &plan);
  });
  if (!result.status.ok()) return ReportFailure(result, options, watcher);
  std::vector<v1::SubmissionReport> reports;
  for (const v1::Submission& rerun : plan.reruns()) {
    if (!options.quiet)
      std::cerr << "kbench: re-running " << rerun.user() << "'s " << rerun.rerun_of() << " as "
                << rerun.submission_id() << std::endl;
    if (!RunSubmission(options, call, watcher, rerun)) return ExitCode::kInterrupted;
    v1::SubmissionReport& report = reports.emplace_back();
    result = FinalReport(call, watcher, rerun.submission_id(), report);
    if (!result.status.ok()) return ReportFailure(result, options, watcher);
    if (watcher.interrupted()) return ExitCode::kInterrupted;
  }
  if (options.format == OutputFormat::kJson) {
    v1::ListSubmissionsResponse all;
    for (const v1::SubmissionReport& report : reports) *all.add_submissions() = report;
    std::cout << FormatMessageJson(all) << std::flush;
  } else {
    std::cout << FormatRerun(plan, reports) << std::flush;
  }
  return ExitCode::kOk;
}

ExitCode Submit(const GlobalOptions& options, const CallOptions& call, InterruptWatcher& watcher,
                const SubmitCommand& command) {
  absl::StatusOr<v1::KernelSource> kernel =
      ReadKernelFile(command.kernel.files.front(), command.kernel);
  if (!kernel.ok()) {
    std::cerr << "kbench: " << kernel.status().message() << std::endl;
    return ExitCode::kBadArguments;
  }
  v1::SubmitRequest request;
  request.set_assignment(command.assignment);
  *request.mutable_kernel() = *std::move(kernel);
  v1::Submission submission;
  CallResult result = CallAssignments(call, watcher, [&](auto& stub, auto& context) {
    return stub.Submit(&context, request, &submission);
  });
  if (!result.status.ok()) return ReportFailure(result, options, watcher);
  if (!options.quiet)
    std::cerr << "kbench: submission " << submission.submission_id() << " to "
              << submission.assignment() << (submission.late() ? " (late)" : "") << ": "
              << submission.runs_size() << " problems" << std::endl;
  if (!RunSubmission(options, call, watcher, submission)) {
    std::cerr << "kbench: interrupted; the submission stays with the problems that ran"
              << std::endl;
    return ExitCode::kInterrupted;
  }
  v1::SubmissionReport report;
  result = FinalReport(call, watcher, submission.submission_id(), report);
  if (!result.status.ok()) return ReportFailure(result, options, watcher);
  if (watcher.interrupted()) return ExitCode::kInterrupted;
  Print(options, report, FormatSubmissionReport(report));
  return report.counts() ? ExitCode::kOk : ExitCode::kVerificationFailed;
}

}  // namespace

std::string FormatRerun(const v1::RerunPlan& plan,
                        const std::vector<v1::SubmissionReport>& reruns) {
  // Ranks among the re-runs that count, by their new scores.
  std::vector<const v1::SubmissionReport*> counting;
  for (const v1::SubmissionReport& report : reruns)
    if (report.counts()) counting.push_back(&report);
  std::stable_sort(counting.begin(), counting.end(),
                   [](const auto* a, const auto* b) { return a->score_ms() < b->score_ms(); });
  std::string text = absl::StrCat("re-run of ", plan.before().assignment().name(), ": the top ",
                                  reruns.size(), " learners' best submissions\n");
  std::vector<std::vector<std::string>> rows = {
      {"learner", "rank", "score ms before", "on", "score ms now", "on", "rank now", "now/before"}};
  for (size_t i = 0; i < reruns.size(); ++i) {
    const v1::SubmissionReport& now = reruns[i];
    const v1::LeaderboardEntry* before = nullptr;
    for (const v1::LeaderboardEntry& entry : plan.before().entries())
      if (entry.best().submission().submission_id() == now.submission().rerun_of()) before = &entry;
    std::string rank_now = "-";
    for (size_t r = 0; r < counting.size(); ++r)
      if (counting[r] == &now) rank_now = absl::StrCat(r + 1);
    rows.push_back({now.submission().user(), before ? absl::StrCat(before->rank()) : "-",
                    before ? Score(before->best()) : "-",
                    before ? absl::StrJoin(before->best().devices(), ", ") : "-",
                    now.counts() ? Score(now) : absl::StrCat("does not count: ", now.why_not()),
                    absl::StrJoin(now.devices(), ", "), rank_now,
                    now.counts() && before
                        ? FormatSignificant(now.score_ms() / before->best().score_ms(), 3)
                        : "-"});
  }
  text += FormatColumns(std::move(rows));
  absl::StrAppend(&text, "the re-runs are kept as submissions (kbench submissions ",
                  plan.before().assignment().name(), "); the leaderboard keeps its scores\n");
  return text;
}

std::string FormatAssignment(const v1::Assignment& a) {
  std::string text = absl::StrCat(a.name(), a.title().empty() ? "" : ": " + a.title(),
                                  a.closed() ? " (closed)" : "", "\n");
  absl::StrAppend(&text, "  cohort: ", a.cohort(), "\n  op: ", a.op(),
                  "\n  opens: ", Time(a.opens_unix_ms()), "\n  due: ", Time(a.due_unix_ms()),
                  "\n  submissions per hour: ", a.submissions_per_hour(),
                  "\n  names on the leaderboard: ", a.show_names() ? "shown" : "hidden",
                  "\n  built-ins beside each submission: ", absl::StrJoin(a.baselines(), ", "),
                  "\n  problems:\n");
  for (int i = 0; i < a.problems_size(); ++i)
    absl::StrAppend(&text, "    ", i + 1, ". ", proto::ops::DescribeProblemOf(a.problems(i)), "\n");
  return text;
}

std::string FormatSubmissionReport(const v1::SubmissionReport& report) {
  const v1::Submission& s = report.submission();
  std::string text =
      absl::StrCat("submission ", s.submission_id(), " to ", s.assignment(), " by ",
                   s.user().empty() ? "(local)" : s.user(), ", ", Time(s.submitted_unix_ms()),
                   s.late() ? " (late)" : "", ": kernel ", s.kernel().name(), "\n");
  std::vector<std::vector<std::string>> rows = {
      {"#", "problem", "dtype", "median ms", "speedup", "verified", "run"}};
  for (int i = 0; i < report.problems_size(); ++i) {
    const v1::ProblemResult& p = report.problems(i);
    const bool timed = p.result().stats().median_ms() > 0;
    rows.push_back({absl::StrCat(i + 1), p.problem(), p.dtype(),
                    timed ? FormatMeasured(p.result().stats().median_ms()) : "-", Speedups(p),
                    p.error().empty() && timed ? "yes" : (p.run_id().empty() ? "not run" : "NO"),
                    p.run_id().empty() ? "-" : p.run_id()});
  }
  text += FormatColumns(std::move(rows));
  // One kernel, compiled the same for every problem of one dtype: the first
  // problem's facts and log say it.
  for (const v1::ProblemResult& p : report.problems())
    if (p.result().has_compile()) {
      absl::StrAppend(&text, "compiled: ", CompileSummary(p.result().compile()), "\n");
      if (!p.result().compile().log().empty())
        absl::StrAppend(&text, "compiler log:\n", p.result().compile().log(),
                        p.result().compile().log().back() == '\n' ? "" : "\n");
      break;
    }
  if (report.counts()) {
    absl::StrAppend(&text, "score: ", Score(report), " (geometric mean of the medians; ",
                    Speedups(report), ")\n");
  } else {
    absl::StrAppend(&text, "does not count: ", report.why_not(), "\n");
  }
  if (!report.devices().empty())
    absl::StrAppend(&text, "measured on: ", absl::StrJoin(report.devices(), ", "), "\n");
  return text;
}

std::string FormatLeaderboard(const v1::Leaderboard& board) {
  std::string text = absl::StrCat(
      "leaderboard of ", board.assignment().name(),
      board.assignment().title().empty() ? "" : ": " + board.assignment().title(), "\n");
  std::vector<std::vector<std::string>> rows = {
      {"rank", "learner", "score ms [interval]", "speedup", "attempts", "last"}};
  for (const v1::LeaderboardEntry& e : board.entries())
    rows.push_back({absl::StrCat(e.tied() ? "=" : "", e.rank()),
                    absl::StrCat(e.user().empty() ? "(hidden)" : e.user(), e.you() ? " (you)" : ""),
                    Score(e.best()), Speedups(e.best()), absl::StrCat(e.attempts()),
                    Time(e.last_attempt_unix_ms())});
  text += board.entries().empty() ? "no submission counts yet\n" : FormatColumns(std::move(rows));
  if (board.without_counting() > 0)
    absl::StrAppend(&text, board.without_counting(),
                    " more learners submitted, with nothing that counts yet\n");
  absl::StrAppend(&text,
                  "score: geometric mean over the problems of the kernel's median time; "
                  "\"=\": tied (intervals overlap)\n");
  return text;
}

std::string FormatLeaderboardCsv(const v1::Leaderboard& board, bool header) {
  std::string text;
  if (header) {
    std::vector<std::string> columns = {
        "rank", "tied", "user", "you", "score_ms", "score_ci_low_ms", "score_ci_high_ms"};
    for (const std::string& baseline : board.assignment().baselines())
      columns.push_back("speedup_" + baseline);
    for (const char* column : {"attempts", "last_attempt_unix_ms", "late", "devices"})
      columns.push_back(column);
    text += CsvLine(columns);
  }
  for (const v1::LeaderboardEntry& e : board.entries()) {
    std::vector<std::string> fields = {absl::StrCat(e.rank()),
                                       e.tied() ? "true" : "false",
                                       e.user(),
                                       e.you() ? "true" : "false",
                                       absl::StrCat(e.best().score_ms()),
                                       absl::StrCat(e.best().score_ci_low_ms()),
                                       absl::StrCat(e.best().score_ci_high_ms())};
    for (const std::string& baseline : board.assignment().baselines()) {
      std::string value;
      for (const v1::ScoreSpeedup& s : e.best().speedups())
        if (s.baseline() == baseline) value = absl::StrCat(s.speedup());
      fields.push_back(value);
    }
    fields.push_back(absl::StrCat(e.attempts()));
    fields.push_back(absl::StrCat(e.last_attempt_unix_ms()));
    fields.push_back(e.best().submission().late() ? "true" : "false");
    fields.push_back(absl::StrJoin(e.best().devices(), ";"));
    text += CsvLine(fields);
  }
  return text;
}

std::string FormatRoster(const v1::Roster& roster) {
  std::string text = absl::StrCat("roster of cohort ", roster.cohort(), "\n");
  std::vector<std::string> header = {"learner"};
  for (const std::string& assignment : roster.assignments()) header.push_back(assignment);
  std::vector<std::vector<std::string>> rows = {header};
  std::vector<std::string> failing;
  for (const v1::RosterRow& row : roster.rows()) {
    std::vector<std::string> line = {row.user()};
    for (const v1::RosterCell& cell : row.cells()) {
      line.push_back(StandingText(cell));
      if (cell.standing() == v1::STANDING_ONLY_FAILING)
        failing.push_back(
            absl::StrCat("  ", row.user(), " on ", cell.assignment(), " (", cell.attempts(),
                         cell.attempts() == 1 ? " attempt" : " attempts", "): ", cell.why_not()));
    }
    rows.push_back(std::move(line));
  }
  text += FormatColumns(std::move(rows));
  if (!failing.empty())
    text += "stuck (submitted, nothing counts yet):\n" + absl::StrJoin(failing, "\n") + "\n";
  return text;
}

std::string FormatGradebookCsv(const v1::Roster& roster, bool header) {
  std::string text;
  if (header) {
    std::vector<std::string> columns = {"user"};
    for (const std::string& assignment : roster.assignments()) columns.push_back(assignment);
    text += CsvLine(columns);
  }
  for (const v1::RosterRow& row : roster.rows()) {
    std::vector<std::string> fields = {row.user()};
    for (const v1::RosterCell& cell : row.cells())
      fields.push_back(cell.standing() == v1::STANDING_COUNTING ? absl::StrCat(cell.score_ms())
                       : cell.standing() == v1::STANDING_ONLY_FAILING ? "failing"
                                                                      : "not started");
    text += CsvLine(fields);
  }
  return text;
}

ExitCode RunAssignmentCommand(const GlobalOptions& options, const CallOptions& call,
                              InterruptWatcher& watcher, const AssignmentCommand& command) {
  const bool csv_allowed = std::holds_alternative<LeaderboardCommand>(command) ||
                           std::holds_alternative<RosterCommand>(command);
  const bool gradebook =
      std::holds_alternative<RosterCommand>(command) && std::get<RosterCommand>(command).gradebook;
  if (options.format == OutputFormat::kCsv && !csv_allowed) {
    std::cerr << "kbench: --csv applies to leaderboard and roster; use --json or neither"
              << std::endl;
    return ExitCode::kBadArguments;
  }
  if (const auto* submit = std::get_if<SubmitCommand>(&command))
    return Submit(options, call, watcher, *submit);
  if (const auto* rerun = std::get_if<AssignmentRerunCommand>(&command))
    return Rerun(options, call, watcher, *rerun);

  CallResult result;
  std::string output;
  std::unique_ptr<google::protobuf::Message> message;
  if (const auto* save = std::get_if<AssignmentSaveCommand>(&command)) {
    absl::StatusOr<v1::Assignment> assignment =
        LoadAssignment(save->file, NowUnixMs(), save->overrides);
    if (!assignment.ok()) {
      std::cerr << "kbench: " << assignment.status().message() << std::endl;
      return ExitCode::kBadArguments;
    }
    v1::SaveAssignmentRequest request;
    *request.mutable_assignment() = *std::move(assignment);
    request.set_replace(save->replace);
    auto saved = std::make_unique<v1::Assignment>();
    result = CallAssignments(call, watcher, [&](auto& stub, auto& context) {
      return stub.SaveAssignment(&context, request, saved.get());
    });
    if (result.status.ok())
      output = absl::StrCat(save->replace ? "replaced " : "created ", FormatAssignment(*saved));
    message = std::move(saved);
  } else if (const auto* list = std::get_if<AssignmentListCommand>(&command)) {
    v1::ListAssignmentsRequest request;
    request.set_cohort(list->cohort);
    auto listed = std::make_unique<v1::ListAssignmentsResponse>();
    result = CallAssignments(call, watcher, [&](auto& stub, auto& context) {
      return stub.ListAssignments(&context, request, listed.get());
    });
    std::vector<std::vector<std::string>> rows = {
        {"name", "cohort", "op", "problems", "due", "state", "title"}};
    for (const v1::Assignment& a : listed->assignments())
      rows.push_back({a.name(), a.cohort(), a.op(), absl::StrCat(a.problems_size()),
                      Time(a.due_unix_ms()),
                      a.closed()                        ? "closed"
                      : a.opens_unix_ms() > NowUnixMs() ? "not open"
                                                        : "open",
                      a.title()});
    output = listed->assignments().empty() ? "no assignments\n" : FormatColumns(std::move(rows));
    message = std::move(listed);
  } else if (const auto* show = std::get_if<AssignmentShowCommand>(&command)) {
    v1::AssignmentName name;
    name.set_name(show->name);
    auto shown = std::make_unique<v1::Assignment>();
    result = CallAssignments(call, watcher, [&](auto& stub, auto& context) {
      return stub.GetAssignment(&context, name, shown.get());
    });
    output = FormatAssignment(*shown);
    message = std::move(shown);
  } else if (const auto* close = std::get_if<AssignmentCloseCommand>(&command)) {
    v1::AssignmentName name;
    name.set_name(close->name);
    auto closed = std::make_unique<v1::Assignment>();
    result = CallAssignments(call, watcher, [&](auto& stub, auto& context) {
      return stub.CloseAssignment(&context, name, closed.get());
    });
    output = absl::StrCat("closed ", closed->name(), ": it takes no more submissions\n");
    message = std::move(closed);
  } else if (const auto* submissions = std::get_if<SubmissionsCommand>(&command)) {
    v1::ListSubmissionsRequest request;
    request.set_assignment(submissions->assignment);
    request.set_user(submissions->user);
    auto listed = std::make_unique<v1::ListSubmissionsResponse>();
    result = CallAssignments(call, watcher, [&](auto& stub, auto& context) {
      return stub.ListSubmissions(&context, request, listed.get());
    });
    std::vector<std::vector<std::string>> rows = {
        {"submission", "learner", "submitted", "kernel", "score ms [interval]", "why not"}};
    for (const v1::SubmissionReport& r : listed->submissions())
      rows.push_back({r.submission().submission_id(), r.submission().user(),
                      absl::StrCat(Time(r.submission().submitted_unix_ms()),
                                   r.submission().late() ? " (late)" : "",
                                   r.submission().rerun_of().empty()
                                       ? ""
                                       : " (re-run of " + r.submission().rerun_of() + ")"),
                      r.submission().kernel().name(), r.counts() ? Score(r) : "-",
                      r.counts() ? "" : r.why_not()});
    output = listed->submissions().empty() ? "no submissions\n" : FormatColumns(std::move(rows));
    message = std::move(listed);
  } else if (const auto* leaderboard = std::get_if<LeaderboardCommand>(&command)) {
    v1::AssignmentName name;
    name.set_name(leaderboard->assignment);
    auto board = std::make_unique<v1::Leaderboard>();
    result = CallAssignments(call, watcher, [&](auto& stub, auto& context) {
      return stub.GetLeaderboard(&context, name, board.get());
    });
    output = options.format == OutputFormat::kCsv
                 ? FormatLeaderboardCsv(*board,
                                        StdoutCsvHeader(options.csv_header) == CsvHeaderLine::kWith)
                 : FormatLeaderboard(*board);
    message = std::move(board);
  } else if (const auto* roster_command = std::get_if<RosterCommand>(&command)) {
    v1::GetRosterRequest request;
    request.set_cohort(roster_command->cohort);
    auto roster = std::make_unique<v1::Roster>();
    result = CallAssignments(call, watcher, [&](auto& stub, auto& context) {
      return stub.GetRoster(&context, request, roster.get());
    });
    output = gradebook || options.format == OutputFormat::kCsv
                 ? FormatGradebookCsv(*roster,
                                      StdoutCsvHeader(options.csv_header) == CsvHeaderLine::kWith)
                 : FormatRoster(*roster);
    message = std::move(roster);
  }
  if (!result.status.ok()) {
    const ExitCode code = ReportFailure(result, options, watcher);
    return result.status.error_code() == grpc::StatusCode::INVALID_ARGUMENT
               ? ExitCode::kBadArguments
               : code;
  }
  if (gradebook || options.format == OutputFormat::kCsv) {
    std::cout << output << std::flush;
  } else {
    Print(options, *message, output);
  }
  return ExitCode::kOk;
}

}  // namespace kbench::client
