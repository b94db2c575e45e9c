#include "server/store/sql_run_store.h"

#include <algorithm>
#include <cstdint>
#include <string_view>
#include <utility>
#include <variant>

#include "absl/strings/str_cat.h"
#include "kernels/common/status_macros.h"
#include "proto/text/utf8.h"
#include "server/common/echo.h"
#include "server/common/sha256.h"
#include "server/store/learner.h"
#include "server/store/list_query.h"
#include "server/store/migrations.h"
#include "server/store/proto_column.h"
#include "server/store/queue_store.h"
#include "server/store/run_results.h"
#include "server/store/unix_time.h"

namespace kbench::server::store {
namespace {

constexpr char kColumns[] =
    "run_id, user_name, peer, label, op, status, error, accepted_unix_ms, "
    "started_unix_ms, ended_unix_ms, admission_part, start_part, end_part";

// INVALID_ARGUMENT naming `field` unless `value` is UTF-8: a record's text
// goes into `string` fields, which a reader cannot parse otherwise.
absl::Status CheckText(const char* field, const std::string& value) {
  if (proto::text::FirstInvalidUtf8(value) == std::string_view::npos) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(field, ": not valid UTF-8 text"));
}

// A row of kColumns to its record: the parts merged, then the columns.
// Whatever a row holds, its record can be sent: text that is not UTF-8 (a
// row an older server wrote) is made valid, and a part that does not parse
// is left out; either marks the record sanitized. One bad row never fails
// a page.
v1::RunRecord RecordFromRow(const SqlRow& row) {
  v1::RunRecord record;
  bool sanitized = false;
  for (int i = 10; i <= 12; ++i) {
    v1::RunRecord part;
    if (part.ParseFromString(std::get<SqlBytes>(row[i]).data)) {
      record.MergeFrom(part);
    } else {
      sanitized = true;
    }
  }
  const auto valid_text = [&](int column) {
    const std::string& stored = std::get<std::string>(row[column]);
    std::string valid = proto::text::ValidUtf8Prefix(stored, SIZE_MAX);
    if (valid != stored) sanitized = true;
    return valid;
  };
  record.set_run_id(valid_text(0));
  record.set_user(valid_text(1));
  record.set_peer(valid_text(2));
  record.set_label(valid_text(3));
  record.set_op(valid_text(4));
  record.set_status(static_cast<v1::RunStatus>(std::get<int64_t>(row[5])));
  record.set_error(valid_text(6));
  record.set_accepted_unix_ms(std::get<int64_t>(row[7]));
  record.set_started_unix_ms(std::get<int64_t>(row[8]));
  record.set_ended_unix_ms(std::get<int64_t>(row[9]));
  if (sanitized) record.set_sanitized(true);
  return record;
}

bool IsFinal(v1::RunStatus status) {
  return status == v1::RUN_STATUS_OK || status == v1::RUN_STATUS_FAILED_VERIFICATION ||
         status == v1::RUN_STATUS_CANCELLED || status == v1::RUN_STATUS_ERROR;
}

}  // namespace

SqlRunStore::SqlRunStore(std::unique_ptr<SqlDatabase> database, std::string host)
    : database_(std::move(database)), host_(std::move(host)) {}

absl::Status SqlRunStore::Migrate() {
  std::lock_guard lock(mu_);
  return ApplyMigrations(*database_);
}

absl::Status SqlRunStore::Accept(const v1::RunRecord& record) {
  if (record.run_id().empty()) {
    return absl::InvalidArgumentError("run_id: empty");
  }
  if (record.status() != v1::RUN_STATUS_QUEUED && record.status() != v1::RUN_STATUS_REFUSED) {
    return absl::InvalidArgumentError(absl::StrCat(
        "status: a run is accepted QUEUED or REFUSED, not ", v1::RunStatus_Name(record.status())));
  }
  if (record.samples_size() != 0) {
    return absl::InvalidArgumentError("samples: written by Finish, not Accept");
  }
  KBENCH_RETURN_IF_ERROR(CheckText("run_id", record.run_id()));
  KBENCH_RETURN_IF_ERROR(CheckText("user", record.user()));
  KBENCH_RETURN_IF_ERROR(CheckText("peer", record.peer()));
  KBENCH_RETURN_IF_ERROR(CheckText("label", record.label()));
  KBENCH_RETURN_IF_ERROR(CheckText("op", record.op()));
  KBENCH_RETURN_IF_ERROR(CheckText("error", record.error()));
  // The columns are stored once, as columns.
  v1::RunRecord admission = record;
  admission.clear_run_id();
  admission.clear_user();
  admission.clear_peer();
  admission.clear_label();
  admission.clear_op();
  admission.clear_status();
  admission.clear_error();
  admission.clear_accepted_unix_ms();
  admission.clear_started_unix_ms();
  admission.clear_ended_unix_ms();
  // Kernel sources are stored once each, by hash (kernel_sources).
  std::vector<std::string> hashes;
  for (v1::KernelSource& kernel : *admission.mutable_request()->mutable_kernels()) {
    hashes.push_back(Sha256Hex(kernel.source()));
    kernel.clear_source();
  }
  std::lock_guard lock(mu_);
  return database_->InTransaction([&]() -> absl::Status {
    KBENCH_ASSIGN_OR_RETURN(
        int64_t inserted,
        database_->Execute(
            "INSERT INTO runs (run_id, user_name, peer, label, op, status, error, "
            "accepted_unix_ms, started_unix_ms, ended_unix_ms, admission_part, "
            "submission_id, host, learner) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (run_id) DO NOTHING",
            {record.run_id(), record.user(), record.peer(), record.label(), record.op(),
             int64_t{record.status()}, record.error(), record.accepted_unix_ms(),
             record.started_unix_ms(), record.ended_unix_ms(), Serialized(admission),
             record.request().submission_id(), host_, LearnerOf(record.user(), record.peer())}));
    if (inserted == 0) {
      return absl::AlreadyExistsError(
          absl::StrCat("run ", Echo(record.run_id()), " is already stored"));
    }
    for (size_t i = 0; i < hashes.size(); ++i) {
      KBENCH_RETURN_IF_ERROR(
          database_
              ->Execute("INSERT INTO kernel_sources (sha256, source) VALUES (?, ?) "
                        "ON CONFLICT (sha256) DO NOTHING",
                        {hashes[i], SqlBytes{record.request().kernels(int(i)).source()}})
              .status());
      KBENCH_RETURN_IF_ERROR(
          database_
              ->Execute("INSERT INTO run_kernels (run_id, position, sha256) VALUES (?, ?, ?)",
                        {record.run_id(), int64_t(i), hashes[i]})
              .status());
    }
    return absl::OkStatus();
  });
}

absl::Status SqlRunStore::ReadKernelSources(v1::RunRecord& record) {
  KBENCH_ASSIGN_OR_RETURN(
      std::vector<SqlRow> rows,
      database_->Query("SELECT run_kernels.position, kernel_sources.source FROM run_kernels "
                       "JOIN kernel_sources ON kernel_sources.sha256 = run_kernels.sha256 "
                       "WHERE run_kernels.run_id = ?",
                       {record.run_id()}));
  auto& kernels = *record.mutable_request()->mutable_kernels();
  for (const SqlRow& row : rows) {
    const int64_t position = std::get<int64_t>(row[0]);
    if (position >= 0 && position < kernels.size())
      kernels[int(position)].set_source(std::get<SqlBytes>(row[1]).data);
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<std::string>> SqlRunStore::KernelHashes(const std::string& run_id) {
  std::lock_guard lock(mu_);
  KBENCH_ASSIGN_OR_RETURN(
      std::vector<SqlRow> rows,
      database_->Query("SELECT sha256 FROM run_kernels WHERE run_id = ? ORDER BY position",
                       {run_id}));
  std::vector<std::string> hashes;
  for (const SqlRow& row : rows) hashes.push_back(std::get<std::string>(row[0]));
  return hashes;
}

absl::Status SqlRunStore::Start(const std::string& run_id, const v1::DeviceInfo& device,
                                const v1::Started& started, int64_t unix_ms) {
  v1::RunRecord start;
  *start.mutable_device() = device;
  *start.mutable_started() = started;
  std::lock_guard lock(mu_);
  KBENCH_ASSIGN_OR_RETURN(
      int64_t updated,
      database_->Execute("UPDATE runs SET status = ?, started_unix_ms = ?, start_part = ? "
                         "WHERE run_id = ? AND status IN (?, ?)",
                         {int64_t{v1::RUN_STATUS_RUNNING}, unix_ms, Serialized(start), run_id,
                          int64_t{v1::RUN_STATUS_QUEUED}, int64_t{v1::RUN_STATUS_RUNNING}}));
  if (updated == 0) return NotInFlight(run_id);
  return absl::OkStatus();
}

absl::Status SqlRunStore::Finish(const std::string& run_id, const RunOutcome& outcome) {
  if (!IsFinal(outcome.status)) {
    return absl::InvalidArgumentError(
        absl::StrCat("status: a run finishes OK, FAILED_VERIFICATION, CANCELLED or ERROR, not ",
                     v1::RunStatus_Name(outcome.status)));
  }
  KBENCH_RETURN_IF_ERROR(CheckText("error", outcome.error));
  v1::RunRecord end;
  *end.mutable_results() = outcome.results;
  if (outcome.summary) *end.mutable_summary() = *outcome.summary;
  std::lock_guard lock(mu_);
  return database_->InTransaction([&]() -> absl::Status {
    KBENCH_ASSIGN_OR_RETURN(
        int64_t updated,
        database_->Execute(
            "UPDATE runs SET status = ?, error = ?, ended_unix_ms = ?, end_part = ? "
            "WHERE run_id = ? AND status IN (?, ?)",
            {int64_t{outcome.status}, outcome.error, outcome.unix_ms, Serialized(end), run_id,
             int64_t{v1::RUN_STATUS_QUEUED}, int64_t{v1::RUN_STATUS_RUNNING}}));
    if (updated == 0) return NotInFlight(run_id);
    for (int i = 0; i < outcome.samples.size(); ++i) {
      KBENCH_RETURN_IF_ERROR(
          database_
              ->Execute("INSERT INTO run_samples (run_id, position, series) VALUES (?, ?, ?)",
                        {run_id, int64_t{i}, Serialized(outcome.samples[i])})
              .status());
    }
    return WriteResultsOfRuns(*database_, "run_id = ?", {run_id}, 1).status();
  });
}

absl::StatusOr<int64_t> SqlRunStore::MarkInFlightInterrupted() {
  std::lock_guard lock(mu_);
  int64_t marked = 0;
  KBENCH_RETURN_IF_ERROR(database_->InTransaction([&]() -> absl::Status {
    KBENCH_ASSIGN_OR_RETURN(
        marked,
        database_->Execute(
            "UPDATE runs SET error = CASE status WHEN ? THEN ? ELSE ? END, status = ? "
            "WHERE status IN (?, ?) AND host IN (?, '')",
            {int64_t{v1::RUN_STATUS_QUEUED}, "the server stopped while the run was queued",
             "the server stopped while the run was running", int64_t{v1::RUN_STATUS_INTERRUPTED},
             int64_t{v1::RUN_STATUS_QUEUED}, int64_t{v1::RUN_STATUS_RUNNING}, host_}));
    // The shared queue's runs this host had claimed or admitted.
    return SweepQueueOfHosts(*database_, "SELECT CAST(? AS TEXT)", {host_}, NowUnixMs(),
                             "the server running it stopped while the run was running");
  }));
  return marked;
}

absl::Status SqlRunStore::Heartbeat(int64_t unix_ms) {
  std::lock_guard lock(mu_);
  return database_
      ->Execute(
          "INSERT INTO host_leases (host, seen_unix_ms) VALUES (?, ?) "
          "ON CONFLICT (host) DO UPDATE SET seen_unix_ms = excluded.seen_unix_ms",
          {host_, unix_ms})
      .status();
}

absl::StatusOr<int64_t> SqlRunStore::MarkLapsedHostsInterrupted(int64_t unix_ms, int64_t lease_ms) {
  std::lock_guard lock(mu_);
  int64_t marked = 0;
  KBENCH_RETURN_IF_ERROR(database_->InTransaction([&]() -> absl::Status {
    const int64_t before = unix_ms - lease_ms;
    KBENCH_ASSIGN_OR_RETURN(
        marked, database_->Execute(
                    "UPDATE runs SET error = CASE status WHEN ? THEN ? ELSE ? END, status = ? "
                    "WHERE status IN (?, ?) AND host IN (SELECT host FROM host_leases "
                    "WHERE seen_unix_ms < ? AND host <> ?)",
                    {int64_t{v1::RUN_STATUS_QUEUED},
                     "its server stopped renewing its lease while the run was queued",
                     "its server stopped renewing its lease while the run was running",
                     int64_t{v1::RUN_STATUS_INTERRUPTED}, int64_t{v1::RUN_STATUS_QUEUED},
                     int64_t{v1::RUN_STATUS_RUNNING}, before, host_}));
    KBENCH_RETURN_IF_ERROR(SweepQueueOfHosts(
        *database_, "SELECT host FROM host_leases WHERE seen_unix_ms < ? AND host <> ?",
        {before, host_}, unix_ms,
        "the server running it stopped renewing its lease while the run was running"));
    return database_
        ->Execute("DELETE FROM host_leases WHERE seen_unix_ms < ? AND host <> ?", {before, host_})
        .status();
  }));
  return marked;
}

absl::StatusOr<v1::ListRunsResponse> SqlRunStore::List(const v1::ListRunsRequest& request,
                                                       Samples samples) {
  KBENCH_ASSIGN_OR_RETURN(ListQuery query, BuildListQuery(request));
  // One more than a page tells whether another page follows.
  query.params.emplace_back(std::in_place_type<int64_t>, query.page_size + 1);
  std::lock_guard lock(mu_);
  KBENCH_ASSIGN_OR_RETURN(
      std::vector<SqlRow> rows,
      database_->Query(absl::StrCat("SELECT ", kColumns, " FROM runs ", query.where,
                                    " ORDER BY accepted_unix_ms DESC, run_id DESC LIMIT ?"),
                       query.params));
  v1::ListRunsResponse response;
  for (size_t i = 0; i < rows.size() && i < query.page_size; ++i) {
    *response.add_runs() = RecordFromRow(rows[i]);
    if (samples == Samples::kInclude) {
      KBENCH_RETURN_IF_ERROR(ReadSamples(*response.mutable_runs()->rbegin()));
    }
  }
  if (rows.size() > query.page_size) {
    const v1::RunRecord& last = *response.runs().rbegin();
    response.set_next_page_token(EncodePageToken(last.accepted_unix_ms(), last.run_id()));
  }
  return response;
}

absl::StatusOr<RunTallies> SqlRunStore::Tally(TallyBy by, const v1::ListRunsRequest& filter) {
  v1::ListRunsRequest unpaged = filter;
  unpaged.clear_page_size();
  unpaged.clear_page_token();
  KBENCH_ASSIGN_OR_RETURN(ListQuery query, BuildListQuery(unpaged));
  const bool by_label = by == TallyBy::kLabel;
  const char* key = by_label ? "label" : "learner";
  const char* other = by_label ? "learner" : "label";
  const auto count_of = [](v1::RunStatus status) {
    return absl::StrCat("SUM(CASE WHEN status = ", int{status}, " THEN 1 ELSE 0 END)");
  };
  // Counted per (key, other) first, then per key: the distinct others are
  // the inner groups, so neither level sorts for a COUNT(DISTINCT), and
  // both read the covering index of (key, other, status, accepted_unix_ms).
  const std::string inner = absl::StrCat(
      "SELECT ", key, " AS k, COUNT(*) AS runs, ", count_of(v1::RUN_STATUS_OK), " AS ok, ",
      count_of(v1::RUN_STATUS_FAILED_VERIFICATION), " AS failed, SUM(CASE WHEN status <> ",
      int{v1::RUN_STATUS_REFUSED}, " THEN 1 ELSE 0 END) AS admitted, ",
      "MAX(accepted_unix_ms) AS last FROM runs ", query.where, " GROUP BY ", key, ", ", other);
  // A label only refused runs carry (a typo, a sweep the server could not
  // run) names no assignment.
  const char* having = by_label ? " HAVING SUM(admitted) > 0" : "";
  query.params.emplace_back(std::in_place_type<int64_t>, int64_t{kMaxTallyRows} + 1);
  std::lock_guard lock(mu_);
  KBENCH_ASSIGN_OR_RETURN(
      std::vector<SqlRow> rows,
      // (PostgreSQL sums BIGINTs as NUMERIC: cast back.)
      database_->Query(absl::StrCat("SELECT k, CAST(SUM(runs) AS BIGINT), COUNT(*), "
                                    "CAST(SUM(ok) AS BIGINT), CAST(SUM(failed) AS BIGINT), "
                                    "MAX(last) FROM (",
                                    inner, ") AS per_pair GROUP BY k", having,
                                    " ORDER BY MAX(last) DESC LIMIT ?"),
                       query.params));
  RunTallies tallies;
  tallies.truncated = rows.size() > kMaxTallyRows;
  for (size_t i = 0; i < rows.size() && i < kMaxTallyRows; ++i) {
    const SqlRow& row = rows[i];
    tallies.rows.push_back({.key = std::get<std::string>(row[0]),
                            .runs = std::get<int64_t>(row[1]),
                            .others = std::get<int64_t>(row[2]),
                            .ok = std::get<int64_t>(row[3]),
                            .failed_verification = std::get<int64_t>(row[4]),
                            .last_unix_ms = std::get<int64_t>(row[5])});
  }
  // Ties in time by key, in byte order whatever the database's collation.
  std::stable_sort(tallies.rows.begin(), tallies.rows.end(), [](const auto& a, const auto& b) {
    return a.last_unix_ms != b.last_unix_ms ? a.last_unix_ms > b.last_unix_ms : a.key < b.key;
  });
  return tallies;
}

absl::StatusOr<ResultRows> SqlRunStore::Results(ResultView view,
                                                const v1::ListRunsRequest& filter) {
  std::lock_guard lock(mu_);
  return ReadResults(*database_, view, filter);
}

absl::StatusOr<v1::RunRecord> SqlRunStore::Get(const std::string& run_id) {
  std::lock_guard lock(mu_);
  KBENCH_ASSIGN_OR_RETURN(
      std::vector<SqlRow> rows,
      database_->Query(absl::StrCat("SELECT ", kColumns, " FROM runs WHERE run_id = ?"), {run_id}));
  if (rows.empty()) {
    return RunNotFoundError(run_id);
  }
  v1::RunRecord record = RecordFromRow(rows[0]);
  KBENCH_RETURN_IF_ERROR(ReadSamples(record));
  KBENCH_RETURN_IF_ERROR(ReadKernelSources(record));
  return record;
}

absl::StatusOr<ActivityElsewhere> SqlRunStore::ActivityElsewhereOf(const std::string& user,
                                                                   int64_t since_unix_ms) {
  std::lock_guard lock(mu_);
  ActivityElsewhere activity;
  // Over runs_by_user_in_flight (user_name, status, host).
  KBENCH_ASSIGN_OR_RETURN(
      std::vector<SqlRow> in_flight,
      database_->Query(
          "SELECT status, COUNT(*) FROM runs WHERE user_name = ? AND status IN (?, ?) "
          "AND host <> ? GROUP BY status",
          {user, int64_t{v1::RUN_STATUS_QUEUED}, int64_t{v1::RUN_STATUS_RUNNING}, host_}));
  for (const SqlRow& row : in_flight) {
    const int64_t count = std::get<int64_t>(row[1]);
    activity.open += count;
    if (std::get<int64_t>(row[0]) == v1::RUN_STATUS_QUEUED) activity.waiting += count;
  }
  // Over runs_by_user (user_name, accepted_unix_ms).
  KBENCH_ASSIGN_OR_RETURN(
      std::vector<SqlRow> requests,
      database_->Query(
          "SELECT COUNT(*) FROM runs WHERE user_name = ? AND accepted_unix_ms >= ? AND host <> ?",
          {user, since_unix_ms, host_}));
  activity.requests = std::get<int64_t>(requests[0][0]);
  return activity;
}

absl::StatusOr<DeviceTime> SqlRunStore::DeviceTimeOf(const std::string& user,
                                                     int64_t since_unix_ms) {
  std::lock_guard lock(mu_);
  KBENCH_ASSIGN_OR_RETURN(
      std::vector<SqlRow> rows,
      database_->Query("SELECT CAST(COALESCE(SUM(ended_unix_ms - started_unix_ms), 0) AS BIGINT), "
                       "CAST(COALESCE(MIN(ended_unix_ms), 0) AS BIGINT) FROM runs "
                       "WHERE user_name = ? AND started_unix_ms > 0 AND ended_unix_ms >= ?",
                       {user, since_unix_ms}));
  DeviceTime time;
  time.seconds = double(std::get<int64_t>(rows.at(0)[0])) / 1000;
  time.oldest_end_unix_ms = std::get<int64_t>(rows.at(0)[1]);
  return time;
}

absl::StatusOr<std::map<std::string, v1::QuotaOverrides>> SqlRunStore::CohortQuotas() {
  std::lock_guard lock(mu_);
  KBENCH_ASSIGN_OR_RETURN(std::vector<SqlRow> rows,
                          database_->Query("SELECT cohort, overrides FROM cohort_quotas", {}));
  std::map<std::string, v1::QuotaOverrides> quotas;
  for (const SqlRow& row : rows) {
    const std::string& cohort = std::get<std::string>(row[0]);
    if (!quotas[cohort].ParseFromString(std::get<SqlBytes>(row[1]).data)) {
      return absl::DataLossError(absl::StrCat("cohort ", cohort, ": stored quotas do not parse"));
    }
  }
  return quotas;
}

absl::Status SqlRunStore::SetCohortQuotas(const std::string& cohort,
                                          const v1::QuotaOverrides& overrides, int64_t unix_ms) {
  std::lock_guard lock(mu_);
  return database_
      ->Execute(
          "INSERT INTO cohort_quotas (cohort, overrides, updated_unix_ms) VALUES (?, ?, ?) "
          "ON CONFLICT (cohort) DO UPDATE SET overrides = excluded.overrides, "
          "updated_unix_ms = excluded.updated_unix_ms",
          {cohort, SqlBytes{overrides.SerializeAsString()}, unix_ms})
      .status();
}

absl::Status SqlRunStore::NotInFlight(const std::string& run_id) {
  KBENCH_ASSIGN_OR_RETURN(std::vector<SqlRow> rows,
                          database_->Query("SELECT status FROM runs WHERE run_id = ?", {run_id}));
  if (rows.empty()) {
    return RunNotFoundError(run_id);
  }
  return absl::FailedPreconditionError(
      absl::StrCat("run ", Echo(run_id), " has already ended: ",
                   v1::RunStatus_Name(static_cast<v1::RunStatus>(std::get<int64_t>(rows[0][0])))));
}

absl::Status SqlRunStore::ReadSamples(v1::RunRecord& record) {
  KBENCH_ASSIGN_OR_RETURN(
      std::vector<SqlRow> rows,
      database_->Query("SELECT series FROM run_samples WHERE run_id = ? ORDER BY position",
                       {record.run_id()}));
  for (const SqlRow& row : rows) {
    if (!record.add_samples()->ParseFromString(std::get<SqlBytes>(row[0]).data)) {
      return absl::DataLossError(
          absl::StrCat("run ", record.run_id(), ": stored samples do not parse"));
    }
  }
  return absl::OkStatus();
}

}  // namespace kbench::server::store
