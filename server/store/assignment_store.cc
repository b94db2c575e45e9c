#include "server/store/assignment_store.h"

#include <utility>
#include <variant>

#include "absl/strings/str_cat.h"
#include "kernels/common/status_macros.h"
#include "server/common/echo.h"
#include "server/common/sha256.h"
#include "server/store/migrations.h"
#include "server/store/proto_column.h"

namespace kbench::server::store {
namespace {

absl::Status Unreadable(const std::string& what) {
  return absl::InternalError(absl::StrCat(what, " in the store cannot be read"));
}

}  // namespace

AssignmentStore::AssignmentStore(std::unique_ptr<SqlDatabase> database)
    : database_(std::move(database)) {}

absl::Status AssignmentStore::Save(const v1::Assignment& assignment, bool replace) {
  std::lock_guard lock(mu_);
  if (replace) {
    KBENCH_ASSIGN_OR_RETURN(
        int64_t updated,
        database_->Execute("UPDATE assignments SET cohort = ?, definition = ?, updated_unix_ms = ? "
                           "WHERE name = ?",
                           {assignment.cohort(), Serialized(assignment),
                            assignment.updated_unix_ms(), assignment.name()}));
    if (updated == 0)
      return absl::NotFoundError(
          absl::StrCat("no assignment ", Echo(assignment.name()), " to replace"));
    return absl::OkStatus();
  }
  KBENCH_ASSIGN_OR_RETURN(
      int64_t inserted,
      database_->Execute("INSERT INTO assignments (name, cohort, definition, updated_unix_ms) "
                         "VALUES (?, ?, ?, ?) ON CONFLICT (name) DO NOTHING",
                         {assignment.name(), assignment.cohort(), Serialized(assignment),
                          assignment.updated_unix_ms()}));
  if (inserted == 0)
    return absl::AlreadyExistsError(
        absl::StrCat("name: an assignment ", Echo(assignment.name()),
                     " exists (edit it with `kbench assignment edit`, or choose another name)"));
  return absl::OkStatus();
}

absl::StatusOr<v1::Assignment> AssignmentStore::Get(const std::string& name) {
  std::lock_guard lock(mu_);
  KBENCH_ASSIGN_OR_RETURN(
      std::vector<SqlRow> rows,
      database_->Query("SELECT definition FROM assignments WHERE name = ?", {name}));
  if (rows.empty()) return absl::NotFoundError(absl::StrCat("no assignment ", Echo(name)));
  v1::Assignment assignment;
  if (!ParseColumn(rows[0][0], assignment)) return Unreadable("assignment " + Echo(name));
  return assignment;
}

absl::StatusOr<std::vector<v1::Assignment>> AssignmentStore::List(const std::string& cohort) {
  std::lock_guard lock(mu_);
  KBENCH_ASSIGN_OR_RETURN(
      std::vector<SqlRow> rows,
      cohort.empty()
          ? database_->Query("SELECT definition FROM assignments ORDER BY name", {})
          : database_->Query("SELECT definition FROM assignments WHERE cohort = ? ORDER BY name",
                             {cohort}));
  std::vector<v1::Assignment> assignments;
  for (const SqlRow& row : rows) {
    v1::Assignment& assignment = assignments.emplace_back();
    if (!ParseColumn(row[0], assignment)) return Unreadable("an assignment");
  }
  return assignments;
}

absl::StatusOr<std::optional<int64_t>> AssignmentStore::AddSubmission(
    const v1::Submission& submission, uint32_t per_hour) {
  if (per_hour == 0) return absl::InvalidArgumentError("per_hour: must be at least 1");
  v1::Submission part = submission;
  part.clear_runs();
  part.mutable_kernel()->clear_source();
  const std::string sha = Sha256Hex(submission.kernel().source());
  part.set_kernel_sha256(sha);
  std::optional<int64_t> frees_at;
  std::lock_guard lock(mu_);
  KBENCH_RETURN_IF_ERROR(database_->InTransaction([&]() -> absl::Status {
    KBENCH_ASSIGN_OR_RETURN(
        std::vector<SqlRow> recent,
        database_->Query(
            "SELECT submitted_unix_ms FROM submissions WHERE assignment = ? AND user_name = ? "
            "AND submitted_unix_ms > ? AND rerun_of = '' ORDER BY submitted_unix_ms",
            {submission.assignment(), submission.user(),
             submission.submitted_unix_ms() - kSubmissionWindowMs}));
    if (submission.rerun_of().empty() && recent.size() >= per_hour) {
      frees_at = std::get<int64_t>(recent[recent.size() - per_hour][0]) + kSubmissionWindowMs;
      return absl::OkStatus();
    }
    KBENCH_RETURN_IF_ERROR(
        database_
            ->Execute("INSERT INTO kernel_sources (sha256, source) VALUES (?, ?) "
                      "ON CONFLICT (sha256) DO NOTHING",
                      {sha, SqlBytes{submission.kernel().source()}})
            .status());
    return database_
        ->Execute(
            "INSERT INTO submissions (submission_id, assignment, user_name, "
            "submitted_unix_ms, kernel_sha256, rerun_of, part) VALUES (?, ?, ?, ?, ?, ?, ?)",
            {submission.submission_id(), submission.assignment(), submission.user(),
             submission.submitted_unix_ms(), sha, submission.rerun_of(), Serialized(part)})
        .status();
  }));
  return frees_at;
}

absl::StatusOr<v1::Submission> AssignmentStore::GetSubmission(const std::string& submission_id) {
  std::lock_guard lock(mu_);
  KBENCH_ASSIGN_OR_RETURN(
      std::vector<SqlRow> rows,
      database_->Query("SELECT submissions.part, kernel_sources.source FROM submissions "
                       "JOIN kernel_sources ON kernel_sources.sha256 = submissions.kernel_sha256 "
                       "WHERE submission_id = ?",
                       {submission_id}));
  if (rows.empty()) return absl::NotFoundError(absl::StrCat("no submission ", Echo(submission_id)));
  v1::Submission submission;
  if (!ParseColumn(rows[0][0], submission)) return Unreadable("submission " + Echo(submission_id));
  submission.mutable_kernel()->set_source(std::get<SqlBytes>(rows[0][1]).data);
  return submission;
}

absl::StatusOr<std::vector<v1::Submission>> AssignmentStore::ListSubmissions(
    const std::string& assignment, const std::string& user) {
  std::lock_guard lock(mu_);
  KBENCH_ASSIGN_OR_RETURN(
      std::vector<SqlRow> rows,
      user.empty()
          ? database_->Query("SELECT part FROM submissions WHERE assignment = ? "
                             "ORDER BY submitted_unix_ms DESC, submission_id DESC",
                             {assignment})
          : database_->Query("SELECT part FROM submissions WHERE assignment = ? AND "
                             "user_name = ? ORDER BY submitted_unix_ms DESC, submission_id DESC",
                             {assignment, user}));
  std::vector<v1::Submission> submissions;
  for (const SqlRow& row : rows) {
    v1::Submission& submission = submissions.emplace_back();
    if (!ParseColumn(row[0], submission)) return Unreadable("a submission");
  }
  return submissions;
}

absl::StatusOr<std::unique_ptr<AssignmentStore>> OpenAssignmentStore(const std::string& spec) {
  KBENCH_ASSIGN_OR_RETURN(std::unique_ptr<SqlDatabase> database, OpenDatabase(spec));
  KBENCH_RETURN_IF_ERROR(ApplyMigrations(*database));
  return std::make_unique<AssignmentStore>(std::move(database));
}

}  // namespace kbench::server::store
