#include "server/front/assignment_book.h"

#include <algorithm>
#include <map>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/time.h"
#include "kernels/common/status_macros.h"
#include "openssl/rand.h"
#include "proto/ops/registry.h"
#include "proto/text/utf8.h"
#include "server/common/echo.h"
#include "server/common/sha256.h"
#include "server/front/assignment_scores.h"
#include "server/front/refusal.h"
#include "server/run/validation.h"
#include "server/store/list_query.h"
#include "server/store/unix_time.h"

namespace kbench::server {
namespace {

std::string TimeText(int64_t unix_ms) {
  return absl::FormatTime("%Y-%m-%d %H:%M UTC", absl::FromUnixMillis(unix_ms), absl::UTCTimeZone());
}

// Whether `caller` manages `cohort`'s assignments: its instructor, or an admin.
bool Manages(const identity::Principal& caller, const std::string& cohort) {
  return caller.AtLeast(identity::Role::kAdmin) ||
         (caller.AtLeast(identity::Role::kInstructor) && caller.cohort == cohort);
}

absl::Status NotManager(const identity::Principal& caller, const std::string& cohort) {
  return absl::PermissionDeniedError(absl::StrCat(
      "cohort: only the instructor of cohort ", Echo(cohort), " or an admin manages its ",
      "assignments, not ", std::string(identity::RoleWithArticle(caller.role)),
      caller.cohort.empty() ? "" : absl::StrCat(" of cohort ", Echo(caller.cohort))));
}

std::string NewSubmissionId() {
  uint64_t value = 0;
  if (RAND_bytes(reinterpret_cast<unsigned char*>(&value), sizeof(value)) != 1) std::abort();
  return absl::StrFormat("%s%012x", std::string(kSubmissionIdPrefix),
                         value & ((uint64_t{1} << (4 * kSubmissionIdDigits)) - 1));
}

// The run problem `index` of `assignment` makes for `submission`.
v1::RunRequest ProblemRun(const v1::Assignment& assignment, int index,
                          const v1::Submission& submission) {
  v1::RunRequest run = assignment.problems(index);
  for (const std::string& baseline : assignment.baselines()) run.add_variants(baseline);
  *run.add_kernels() = submission.kernel();
  run.set_label(assignment.name());
  run.set_submission_id(submission.submission_id());
  return run;
}

// The checks of an assignment that need no store: names, sizes, the
// problems' form (the run service checks their values).
absl::Status CheckAssignment(const v1::Assignment& assignment) {
  KBENCH_RETURN_IF_ERROR(store::CheckName("name", assignment.name()));
  if (assignment.title().size() > kMaxAssignmentTitleBytes)
    return absl::InvalidArgumentError(absl::StrCat("title: must be at most ",
                                                   kMaxAssignmentTitleBytes, " bytes, got ",
                                                   assignment.title().size()));
  if (proto::text::FirstInvalidUtf8(assignment.title()) != std::string_view::npos)
    return absl::InvalidArgumentError("title: not UTF-8");
  const proto::ops::Op* op = proto::ops::FindOp(assignment.op());
  if (op == nullptr)
    return absl::InvalidArgumentError(absl::StrCat("op: no op ", Echo(assignment.op())));
  if (assignment.problems().empty() || assignment.problems_size() > kMaxAssignmentProblems)
    return absl::InvalidArgumentError(absl::StrCat("problems: 1 to ", kMaxAssignmentProblems,
                                                   " per assignment, got ",
                                                   assignment.problems_size()));
  if (assignment.baselines().empty())
    return absl::InvalidArgumentError(
        "baselines: name at least one built-in variant to run beside submissions, e.g. naive");
  for (int i = 0; i < assignment.problems_size(); ++i) {
    const v1::RunRequest& problem = assignment.problems(i);
    const std::string field = absl::StrCat("problems[", i, "]");
    if (proto::ops::OpOf(problem) != op)
      return absl::InvalidArgumentError(
          absl::StrCat(field, ": not a problem of op ", assignment.op()));
    if (!problem.variants().empty() || !problem.kernels().empty() || !problem.label().empty() ||
        problem.seed() != 0 || problem.fault() != v1::FAULT_NONE ||
        !problem.submission_id().empty())
      return absl::InvalidArgumentError(
          absl::StrCat(field,
                       ": a problem sets its sizes, dtype and timing only (variants come from "
                       "baselines, the kernel from each submission)"));
  }
  if (assignment.submissions_per_hour() > kMaxSubmissionsPerHour)
    return absl::InvalidArgumentError(absl::StrCat("submissions_per_hour: at most ",
                                                   kMaxSubmissionsPerHour, ", got ",
                                                   assignment.submissions_per_hour()));
  if (assignment.opens_unix_ms() < 0 || assignment.due_unix_ms() < 0)
    return absl::InvalidArgumentError("opens_unix_ms, due_unix_ms: must not be negative");
  if (assignment.due_unix_ms() != 0 && assignment.due_unix_ms() <= assignment.opens_unix_ms())
    return absl::InvalidArgumentError(absl::StrCat("due: ", TimeText(assignment.due_unix_ms()),
                                                   " is not after it opens (",
                                                   TimeText(assignment.opens_unix_ms()), ")"));
  return absl::OkStatus();
}

// The leaderboard as `caller` may read it.
void HideOthers(const identity::Principal& caller, v1::Leaderboard& board) {
  const bool sees_all = Manages(caller, board.assignment().cohort());
  for (v1::LeaderboardEntry& entry : *board.mutable_entries()) {
    entry.set_you(!caller.anonymous() && entry.user() == caller.user);
    if (sees_all || entry.you() || board.assignment().show_names()) continue;
    entry.clear_user();
    v1::Submission& best = *entry.mutable_best()->mutable_submission();
    best.clear_user();
    best.clear_submission_id();
    best.clear_kernel();
    best.clear_kernel_sha256();
    for (v1::ProblemResult& problem : *entry.mutable_best()->mutable_problems())
      problem.clear_run_id();
  }
}

}  // namespace

AssignmentBook::AssignmentBook(store::AssignmentStore& assignments, store::RunStore& runs,
                               store::IdentityStore* identities, RequestCheck check)
    : assignments_(assignments), runs_(runs), identities_(identities), check_(std::move(check)) {}

absl::StatusOr<v1::Assignment> AssignmentBook::Get(const identity::Principal& caller,
                                                   const std::string& name) {
  absl::StatusOr<v1::Assignment> assignment = assignments_.Get(name);
  if (assignment.ok() && !caller.AtLeast(identity::Role::kAdmin) &&
      assignment->cohort() != caller.cohort)
    return absl::NotFoundError(absl::StrCat("no assignment ", Echo(name)));
  return assignment;
}

absl::StatusOr<std::vector<v1::SubmissionReport>> AssignmentBook::Reports(
    const v1::Assignment& assignment, const std::vector<v1::Submission>& submissions) {
  std::vector<v1::SubmissionReport> reports;
  for (const v1::Submission& submission : submissions) {
    // The submission's runs labelled with the assignment (the store's
    // runs_by_submission index: a label's other runs are never read),
    // oldest first.
    std::vector<v1::RunRecord> runs;
    v1::ListRunsRequest list;
    list.set_label(assignment.name());
    list.set_submission_id(submission.submission_id());
    list.set_page_size(store::kMaxPageSize);
    do {
      KBENCH_ASSIGN_OR_RETURN(v1::ListRunsResponse page, runs_.List(list, store::Samples::kOmit));
      for (v1::RunRecord& run : *page.mutable_runs()) runs.push_back(std::move(run));
      list.set_page_token(page.next_page_token());
    } while (!list.page_token().empty());
    std::reverse(runs.begin(), runs.end());
    std::vector<const v1::RunRecord*> chosen(size_t(assignment.problems_size()), nullptr);
    for (int i = 0; i < assignment.problems_size(); ++i)
      for (const v1::RunRecord& run : runs) {
        if (!RunOfProblem(assignment, i, submission, run)) continue;
        KBENCH_ASSIGN_OR_RETURN(std::vector<std::string> hashes, runs_.KernelHashes(run.run_id()));
        if (hashes.size() != 1 || hashes[0] != submission.kernel_sha256()) continue;
        chosen[size_t(i)] = &run;
        break;
      }
    reports.push_back(ReportOf(assignment, submission, chosen));
  }
  return reports;
}

absl::StatusOr<v1::Assignment> AssignmentBook::Save(const identity::Principal& caller,
                                                    const v1::SaveAssignmentRequest& request) {
  if (!check_) return absl::FailedPreconditionError("assignments are written through the gRPC API");
  v1::Assignment assignment = request.assignment();
  if (assignment.cohort().empty() && !caller.AtLeast(identity::Role::kAdmin))
    assignment.set_cohort(caller.cohort);
  // The anonymous caller of a server without identities has no cohorts:
  // its assignments are for everyone (cohort "").
  if (assignment.cohort().empty() && !caller.anonymous())
    return absl::InvalidArgumentError("cohort: an admin names the cohort the assignment is for");
  if (!Manages(caller, assignment.cohort())) return NotManager(caller, assignment.cohort());
  KBENCH_RETURN_IF_ERROR(CheckAssignment(assignment));
  for (int i = 0; i < assignment.problems_size(); ++i) {
    v1::RunRequest run = assignment.problems(i);
    for (const std::string& baseline : assignment.baselines()) run.add_variants(baseline);
    if (absl::Status admitted = check_(run); !admitted.ok())
      return absl::Status(admitted.code(), absl::StrCat("problems[", i, "]: ", admitted.message()));
  }
  if (assignment.submissions_per_hour() == 0)
    assignment.set_submissions_per_hour(kDefaultSubmissionsPerHour);
  assignment.set_created_by(caller.user);
  if (request.replace()) {
    KBENCH_ASSIGN_OR_RETURN(v1::Assignment old, Get(caller, assignment.name()));
    if (!Manages(caller, old.cohort())) return NotManager(caller, old.cohort());
    assignment.set_created_by(old.created_by());
  } else {
    assignment.set_closed(false);
  }
  assignment.set_updated_unix_ms(store::NowUnixMs());
  KBENCH_RETURN_IF_ERROR(assignments_.Save(assignment, request.replace()));
  return assignment;
}

absl::StatusOr<v1::Assignment> AssignmentBook::Close(const identity::Principal& caller,
                                                     const std::string& name) {
  KBENCH_ASSIGN_OR_RETURN(v1::Assignment assignment, Get(caller, name));
  if (!Manages(caller, assignment.cohort())) return NotManager(caller, assignment.cohort());
  assignment.set_closed(true);
  assignment.set_updated_unix_ms(store::NowUnixMs());
  KBENCH_RETURN_IF_ERROR(assignments_.Save(assignment, /*replace=*/true));
  return assignment;
}

absl::StatusOr<std::vector<v1::Assignment>> AssignmentBook::List(const identity::Principal& caller,
                                                                 const std::string& cohort) {
  const std::string own = caller.AtLeast(identity::Role::kAdmin) ? cohort : caller.cohort;
  if (!cohort.empty() && cohort != own)
    return absl::PermissionDeniedError(
        absl::StrCat("cohort: you see your own cohort's assignments, not ", Echo(cohort), "'s"));
  return assignments_.List(own);
}

absl::StatusOr<v1::Submission> AssignmentBook::Submit(const identity::Principal& caller,
                                                      const v1::SubmitRequest& request) {
  if (!check_) return absl::FailedPreconditionError("submissions are made through the gRPC API");
  KBENCH_ASSIGN_OR_RETURN(v1::Assignment assignment, Get(caller, request.assignment()));
  const int64_t now = store::NowUnixMs();
  if (assignment.closed())
    return absl::FailedPreconditionError(
        absl::StrCat("assignment ", assignment.name(), " is closed: it takes no submissions"));
  if (now < assignment.opens_unix_ms())
    return absl::FailedPreconditionError(absl::StrCat(
        "assignment ", assignment.name(), " opens at ", TimeText(assignment.opens_unix_ms())));
  v1::Submission submission;
  submission.set_submission_id(NewSubmissionId());
  submission.set_assignment(assignment.name());
  submission.set_user(caller.user);
  submission.set_submitted_unix_ms(now);
  submission.set_late(assignment.due_unix_ms() != 0 && now > assignment.due_unix_ms());
  *submission.mutable_kernel() = request.kernel();
  submission.set_kernel_sha256(Sha256Hex(request.kernel().source()));
  for (int i = 0; i < assignment.problems_size(); ++i) {
    v1::RunRequest run = ProblemRun(assignment, i, submission);
    if (absl::Status admitted = check_(run); !admitted.ok())
      return absl::Status(
          admitted.code(),
          absl::StrCat(i == 0 ? ""
                              : absl::StrCat("problem ", i + 1, " (",
                                             proto::ops::DescribeProblemOf(run), "): "),
                       admitted.message()));
    *submission.add_runs() = std::move(run);
  }
  KBENCH_ASSIGN_OR_RETURN(
      std::optional<int64_t> frees_at,
      assignments_.AddSubmission(submission, assignment.submissions_per_hour()));
  if (frees_at)
    return Refused(
        v1::Refusal::REASON_QUOTA,
        absl::StrCat("submissions: ", assignment.submissions_per_hour(), " per hour to ",
                     assignment.name(), " (the assignment's limit); the next is possible at ",
                     TimeText(*frees_at)),
        double(*frees_at - now) / 1000.0);
  return submission;
}

absl::StatusOr<v1::SubmissionReport> AssignmentBook::Report(const identity::Principal& caller,
                                                            const std::string& submission_id) {
  KBENCH_RETURN_IF_ERROR(CheckSubmissionId("submission_id", submission_id));
  const absl::Status unknown = absl::NotFoundError(absl::StrCat("no submission ", submission_id));
  absl::StatusOr<v1::Submission> submission = assignments_.GetSubmission(submission_id);
  if (absl::IsNotFound(submission.status())) return unknown;
  KBENCH_RETURN_IF_ERROR(submission.status());
  absl::StatusOr<v1::Assignment> assignment = Get(caller, submission->assignment());
  if (absl::IsNotFound(assignment.status())) return unknown;
  KBENCH_RETURN_IF_ERROR(assignment.status());
  if (submission->user() != caller.user && !Manages(caller, assignment->cohort())) return unknown;
  KBENCH_ASSIGN_OR_RETURN(std::vector<v1::SubmissionReport> reports,
                          Reports(*assignment, {*submission}));
  return std::move(reports[0]);
}

absl::StatusOr<std::optional<v1::Submission>> AssignmentBook::Previous(
    const identity::Principal& caller, const v1::Submission& submission) {
  const absl::Status unknown =
      absl::NotFoundError(absl::StrCat("no submission ", submission.submission_id()));
  absl::StatusOr<v1::Assignment> assignment = Get(caller, submission.assignment());
  if (absl::IsNotFound(assignment.status())) return unknown;
  KBENCH_RETURN_IF_ERROR(assignment.status());
  if (submission.user() != caller.user && !Manages(caller, assignment->cohort())) return unknown;
  KBENCH_ASSIGN_OR_RETURN(std::vector<v1::Submission> theirs,
                          assignments_.ListSubmissions(submission.assignment(), submission.user()));
  for (const v1::Submission& other : theirs) {  // newest first
    const bool before = other.submitted_unix_ms() < submission.submitted_unix_ms() ||
                        (other.submitted_unix_ms() == submission.submitted_unix_ms() &&
                         other.submission_id() < submission.submission_id());
    if (before && other.rerun_of().empty())
      return assignments_.GetSubmission(other.submission_id());
  }
  return std::nullopt;
}

absl::StatusOr<std::vector<v1::SubmissionReport>> AssignmentBook::Submissions(
    const identity::Principal& caller, const std::string& name, const std::string& user) {
  KBENCH_ASSIGN_OR_RETURN(v1::Assignment assignment, Get(caller, name));
  std::string whose = user;
  if (!Manages(caller, assignment.cohort())) {
    if (!user.empty() && user != caller.user)
      return absl::PermissionDeniedError(
          "user: a learner lists their own submissions only; leave user empty");
    whose = caller.user;
  }
  KBENCH_ASSIGN_OR_RETURN(std::vector<v1::Submission> submissions,
                          assignments_.ListSubmissions(assignment.name(), whose));
  return Reports(assignment, submissions);
}

absl::StatusOr<v1::RerunPlan> AssignmentBook::Rerun(const identity::Principal& caller,
                                                    const v1::RerunRequest& request) {
  if (!check_) return absl::FailedPreconditionError("re-runs are made through the gRPC API");
  if (request.top() > kMaxRerunTop)
    return absl::InvalidArgumentError(
        absl::StrCat("top: at most ", kMaxRerunTop, " learners, got ", request.top()));
  KBENCH_ASSIGN_OR_RETURN(v1::Assignment assignment, Get(caller, request.assignment()));
  if (!Manages(caller, assignment.cohort())) return NotManager(caller, assignment.cohort());
  KBENCH_ASSIGN_OR_RETURN(std::vector<v1::Submission> submissions,
                          assignments_.ListSubmissions(assignment.name(), ""));
  KBENCH_ASSIGN_OR_RETURN(std::vector<v1::SubmissionReport> reports,
                          Reports(assignment, submissions));
  v1::RerunPlan plan;
  *plan.mutable_before() = RankLearners(assignment, reports);
  const int top = int(request.top() == 0 ? kDefaultRerunTop : request.top());
  const int64_t now = store::NowUnixMs();
  for (const v1::LeaderboardEntry& entry : plan.before().entries()) {
    if (plan.reruns_size() == top) break;
    KBENCH_ASSIGN_OR_RETURN(v1::Submission best,
                            assignments_.GetSubmission(entry.best().submission().submission_id()));
    v1::Submission rerun;
    rerun.set_submission_id(NewSubmissionId());
    rerun.set_assignment(assignment.name());
    rerun.set_user(best.user());
    rerun.set_submitted_unix_ms(now);
    *rerun.mutable_kernel() = best.kernel();
    rerun.set_kernel_sha256(best.kernel_sha256());
    rerun.set_rerun_of(best.submission_id());
    rerun.set_runner(caller.user);
    for (int i = 0; i < assignment.problems_size(); ++i) {
      v1::RunRequest run = ProblemRun(assignment, i, rerun);
      // The kernel was admitted when it was submitted; a server whose limits
      // changed since says so here, naming the learner.
      if (absl::Status admitted = check_(run); !admitted.ok())
        return absl::Status(admitted.code(), absl::StrCat(best.user(), "'s ", best.submission_id(),
                                                          ": ", admitted.message()));
      *rerun.add_runs() = std::move(run);
    }
    KBENCH_RETURN_IF_ERROR(assignments_.AddSubmission(rerun, kMaxSubmissionsPerHour).status());
    *plan.add_reruns() = std::move(rerun);
  }
  return plan;
}

absl::StatusOr<v1::Leaderboard> AssignmentBook::Leaderboard(const identity::Principal& caller,
                                                            const std::string& name) {
  KBENCH_ASSIGN_OR_RETURN(v1::Assignment assignment, Get(caller, name));
  KBENCH_ASSIGN_OR_RETURN(std::vector<v1::Submission> submissions,
                          assignments_.ListSubmissions(assignment.name(), ""));
  KBENCH_ASSIGN_OR_RETURN(std::vector<v1::SubmissionReport> reports,
                          Reports(assignment, submissions));
  v1::Leaderboard board = RankLearners(assignment, reports);
  HideOthers(caller, board);
  return board;
}

absl::StatusOr<v1::Roster> AssignmentBook::Roster(const identity::Principal& caller,
                                                  const std::string& requested) {
  const std::string cohort = requested.empty() ? caller.cohort : requested;
  if (cohort.empty() && !caller.anonymous())
    return absl::InvalidArgumentError("cohort: an admin names the cohort whose roster to show");
  if (!Manages(caller, cohort)) return NotManager(caller, cohort);
  v1::Roster roster;
  roster.set_cohort(cohort);
  std::vector<std::string> learners;
  if (identities_ != nullptr) {
    KBENCH_ASSIGN_OR_RETURN(std::vector<store::UserRecord> users, identities_->ListUsers());
    for (const store::UserRecord& user : users)
      if (user.cohort == cohort && user.role == identity::Role::kLearner &&
          user.revoked_unix_ms == 0)
        learners.push_back(user.name);
  }
  KBENCH_ASSIGN_OR_RETURN(std::vector<v1::Assignment> assignments, assignments_.List(cohort));
  // Anyone who submitted is on the roster too (a server without
  // identities has no list of learners).
  std::map<std::string, std::vector<v1::RosterCell>> cells;
  for (const std::string& learner : learners) cells[learner];
  for (size_t a = 0; a < assignments.size(); ++a) {
    const v1::Assignment& assignment = assignments[a];
    roster.add_assignments(assignment.name());
    KBENCH_ASSIGN_OR_RETURN(std::vector<v1::Submission> submissions,
                            assignments_.ListSubmissions(assignment.name(), ""));
    KBENCH_ASSIGN_OR_RETURN(std::vector<v1::SubmissionReport> reports,
                            Reports(assignment, submissions));
    const v1::Leaderboard board = RankLearners(assignment, reports);
    for (const v1::SubmissionReport& report : reports) cells[report.submission().user()];
    for (auto& [user, row] : cells) {
      row.resize(a + 1);
      v1::RosterCell& cell = row[a];
      cell.set_assignment(assignment.name());
      cell.set_standing(v1::STANDING_NOT_STARTED);
      // Reports are newest first: the first of the user's is the latest.
      for (const v1::SubmissionReport& report : reports) {
        if (report.submission().user() != user || !report.submission().rerun_of().empty()) continue;
        if (cell.attempts() == 0) {
          cell.set_standing(v1::STANDING_ONLY_FAILING);
          cell.set_why_not(report.why_not());
          cell.set_last_attempt_unix_ms(report.submission().submitted_unix_ms());
        }
        cell.set_attempts(cell.attempts() + 1);
      }
      for (const v1::LeaderboardEntry& entry : board.entries())
        if (entry.user() == user) {
          cell.set_standing(v1::STANDING_COUNTING);
          cell.set_rank(entry.rank());
          cell.set_score_ms(entry.best().score_ms());
          cell.clear_why_not();
        }
    }
  }
  for (auto& [user, row] : cells) {
    v1::RosterRow& out = *roster.add_rows();
    out.set_user(user);
    row.resize(assignments.size());
    for (size_t a = 0; a < row.size(); ++a) {
      if (row[a].assignment().empty()) {
        row[a].set_assignment(assignments[a].name());
        row[a].set_standing(v1::STANDING_NOT_STARTED);
      }
      *out.add_cells() = std::move(row[a]);
    }
  }
  return roster;
}

}  // namespace kbench::server
