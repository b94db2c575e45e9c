#include "server/store/migrations.h"

#include <variant>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "kernels/common/status_macros.h"
#include "server/store/learner.h"
#include "server/store/run_results.h"
#include "server/store/unix_time.h"

namespace kbench::server::store {
namespace {

struct PortableMigration {
  int64_t version;
  const char* description;
  // BYTES and EMPTY_BYTES stand for the dialect's binary type and its empty
  // value; everything else is the same SQL on SQLite and PostgreSQL.
  std::vector<const char*> statements;
  // Run after the statements, in the same transaction, for what SQL alone
  // cannot compute in both dialects; null for most migrations.
  absl::Status (*then)(SqlDatabase&) = nullptr;
};

// Migration 11's learner of the runs of no user: their peer's host, which
// store::LearnerOf computes (one UPDATE per distinct peer).
absl::Status BackfillLearnersOfPeers(SqlDatabase& database) {
  KBENCH_ASSIGN_OR_RETURN(
      std::vector<SqlRow> peers,
      database.Query("SELECT DISTINCT peer FROM runs WHERE user_name = '' AND learner = ''", {}));
  for (const SqlRow& row : peers) {
    const std::string& peer = std::get<std::string>(row[0]);
    const std::string learner = LearnerOf("", peer);
    if (learner.empty()) continue;
    KBENCH_RETURN_IF_ERROR(
        database
            .Execute(
                "UPDATE runs SET learner = ? WHERE user_name = '' AND learner = '' AND peer = ?",
                {learner, peer})
            .status());
  }
  return absl::OkStatus();
}

// Migration 13's run_results of the runs that ended before it: every run,
// a page at a time (store/run_results.h).
absl::Status BackfillRunResults(SqlDatabase& database) {
  constexpr int64_t kPage = 1000;
  std::string after;
  while (true) {
    KBENCH_ASSIGN_OR_RETURN(after, WriteResultsOfRuns(database, "run_id > ?", {after}, kPage));
    if (after.empty()) return absl::OkStatus();
  }
}

// runs: one row per run. The columns the history filters and sorts on are
// columns; the rest of the RunRecord is stored as serialized protos, one per
// phase of the run, so each phase writes its own: admission_part (request),
// start_part (device, Started), end_part (results, summary).
// run_samples: each variant's raw samples (a SampleSeries), in the order
// the run reported them.
const PortableMigration kMigrations[] = {
    {1,
     "runs",
     {R"sql(CREATE TABLE runs (
  run_id TEXT PRIMARY KEY,
  user_name TEXT NOT NULL,
  peer TEXT NOT NULL,
  label TEXT NOT NULL,
  op TEXT NOT NULL,
  status INTEGER NOT NULL,
  error TEXT NOT NULL,
  accepted_unix_ms BIGINT NOT NULL,
  started_unix_ms BIGINT NOT NULL DEFAULT 0,
  ended_unix_ms BIGINT NOT NULL DEFAULT 0,
  admission_part BYTES NOT NULL,
  start_part BYTES NOT NULL DEFAULT EMPTY_BYTES,
  end_part BYTES NOT NULL DEFAULT EMPTY_BYTES))sql",
      "CREATE INDEX runs_by_time ON runs (accepted_unix_ms, run_id)",
      "CREATE INDEX runs_by_label ON runs (label, accepted_unix_ms)",
      "CREATE INDEX runs_by_user ON runs (user_name, accepted_unix_ms)",
      "CREATE INDEX runs_by_status ON runs (status)"}},
    {2, "run_samples", {R"sql(CREATE TABLE run_samples (
  run_id TEXT NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
  position INTEGER NOT NULL,
  series BYTES NOT NULL,
  PRIMARY KEY (run_id, position)))sql"}},
    // Identities (server/store/identity_store.h): cohorts group learners;
    // a user's token is stored only as its SHA-256 (hex); an admin's cohort
    // is ''; revoked users
    // keep their row (their runs name them) with revoked_unix_ms set.
    {3,
     "cohorts and users",
     {R"sql(CREATE TABLE cohorts (
  name TEXT PRIMARY KEY,
  created_unix_ms BIGINT NOT NULL))sql",
      R"sql(CREATE TABLE users (
  name TEXT PRIMARY KEY,
  cohort TEXT NOT NULL,
  role INTEGER NOT NULL,
  email TEXT NOT NULL DEFAULT '',
  token_sha256 TEXT NOT NULL UNIQUE,
  created_unix_ms BIGINT NOT NULL,
  revoked_unix_ms BIGINT NOT NULL DEFAULT 0))sql",
      "CREATE INDEX users_by_cohort ON users (cohort)"}},
    // Invite codes, stored as their SHA-256: a learner redeems one for a
    // token in its cohort while uses remain and it has not expired.
    {4, "invites", {R"sql(CREATE TABLE invites (
  code_sha256 TEXT PRIMARY KEY,
  cohort TEXT NOT NULL REFERENCES cohorts (name),
  created_by TEXT NOT NULL,
  uses_left BIGINT NOT NULL,
  expires_unix_ms BIGINT NOT NULL,
  created_unix_ms BIGINT NOT NULL))sql"}},
    {5, "runs_by_user_end", {"CREATE INDEX runs_by_user_end ON runs (user_name, ended_unix_ms)"}},
    // cohort_quotas: a cohort's own quotas (a serialized QuotaOverrides).
    {6, "cohort_quotas", {R"sql(CREATE TABLE cohort_quotas (
  cohort TEXT PRIMARY KEY,
  overrides BYTES NOT NULL,
  updated_unix_ms BIGINT NOT NULL))sql"}},
    // Learners' kernel sources, each stored once by its SHA-256 (hex), and
    // which run sent which at each position of RunRequest.kernels; a run's
    // admission_part keeps its kernels without their source.
    {7,
     "kernel_sources",
     {R"sql(CREATE TABLE kernel_sources (
  sha256 TEXT PRIMARY KEY,
  source BYTES NOT NULL))sql",
      R"sql(CREATE TABLE run_kernels (
  run_id TEXT NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
  position INTEGER NOT NULL,
  sha256 TEXT NOT NULL REFERENCES kernel_sources (sha256),
  PRIMARY KEY (run_id, position)))sql"}},
    // Assignments (a serialized kbench.v1.Assignment, its name and cohort
    // as columns) and their submissions (a serialized kbench.v1.Submission
    // without its kernel's source, which is in kernel_sources; rerun_of is
    // set for an instructor's re-run); each run made for a submission
    // names it (RunRequest.submission_id).
    {8,
     "assignments and submissions",
     {R"sql(CREATE TABLE assignments (
  name TEXT PRIMARY KEY,
  cohort TEXT NOT NULL,
  definition BYTES NOT NULL,
  updated_unix_ms BIGINT NOT NULL))sql",
      R"sql(CREATE TABLE submissions (
  submission_id TEXT PRIMARY KEY,
  assignment TEXT NOT NULL REFERENCES assignments (name),
  user_name TEXT NOT NULL,
  submitted_unix_ms BIGINT NOT NULL,
  kernel_sha256 TEXT NOT NULL REFERENCES kernel_sources (sha256),
  rerun_of TEXT NOT NULL DEFAULT '',
  part BYTES NOT NULL))sql",
      "CREATE INDEX submissions_by_assignment ON submissions (assignment, user_name, "
      "submitted_unix_ms)",
      "ALTER TABLE runs ADD COLUMN submission_id TEXT NOT NULL DEFAULT ''",
      "CREATE INDEX runs_by_submission ON runs (submission_id)"}},
    // The host id of the server that accepted each run (--host-id): a
    // server starting up ends only its own runs left in flight, never those
    // of other servers sharing the store. Runs from before have ''.
    {9,
     "runs by host",
     {"ALTER TABLE runs ADD COLUMN host TEXT NOT NULL DEFAULT ''",
      "CREATE INDEX runs_by_host_and_status ON runs (host, status)"}},
    // Each host's lease, renewed by its server (RunStore::Heartbeat): the
    // runs of a host whose lease lapsed are ended by the other servers.
    {10, "host leases", {R"sql(CREATE TABLE host_leases (
  host TEXT PRIMARY KEY,
  seen_unix_ms BIGINT NOT NULL))sql"}},
    // Each run's learner (store::LearnerOf: its user, or its peer's host),
    // written at Accept, and indexes that cover the dashboard's tallies by
    // label and by learner (RunStore::Tally), so they are index scans
    // however many runs the store holds; and one for a user's runs in
    // flight on other hosts (RunStore::ActivityElsewhereOf, the quotas).
    {11,
     "runs by learner",
     {"ALTER TABLE runs ADD COLUMN learner TEXT NOT NULL DEFAULT ''",
      "UPDATE runs SET learner = user_name WHERE user_name <> ''",
      "CREATE INDEX runs_tally_by_label ON runs (label, learner, status, accepted_unix_ms)",
      "CREATE INDEX runs_tally_by_learner ON runs (learner, label, status, accepted_unix_ms)",
      "CREATE INDEX runs_by_user_in_flight ON runs (user_name, status, host)"},
     BackfillLearnersOfPeers},
    // The queue several servers share (store/queue_store.h): each waiting
    // or claimed run with the request to run it and the backend it needs,
    // who claimed it and how it ended, kept for the fair-share window after its end; the events a
    // claiming host wrote for the admitting host to relay; and each host's
    // ready devices, for the cluster's ETAs. Unset numbers are 0, unset
    // text ''.
    {12,
     "shared run queue",
     {R"sql(CREATE TABLE run_queue (
  run_id TEXT PRIMARY KEY,
  user_name TEXT NOT NULL,
  priority BIGINT NOT NULL,
  op TEXT NOT NULL,
  budget_ms BIGINT NOT NULL,
  request BYTES NOT NULL,
  admitted_host TEXT NOT NULL,
  backend TEXT NOT NULL,
  enqueued_unix_ms BIGINT NOT NULL,
  claimed_host TEXT NOT NULL DEFAULT '',
  claimed_unix_ms BIGINT NOT NULL DEFAULT 0,
  device BYTES NOT NULL DEFAULT EMPTY_BYTES,
  started_unix_ms BIGINT NOT NULL DEFAULT 0,
  ended_unix_ms BIGINT NOT NULL DEFAULT 0,
  end_code BIGINT NOT NULL DEFAULT 0,
  end_message TEXT NOT NULL DEFAULT '',
  cancelled BIGINT NOT NULL DEFAULT 0,
  delivered BIGINT NOT NULL DEFAULT 0))sql",
      "CREATE INDEX run_queue_waiting ON run_queue (claimed_host, cancelled, backend, user_name, "
      "enqueued_unix_ms)",
      "CREATE INDEX run_queue_by_admitted_host ON run_queue (admitted_host, delivered)",
      "CREATE INDEX run_queue_share ON run_queue (user_name, ended_unix_ms)",
      R"sql(CREATE TABLE run_events (
  run_id TEXT NOT NULL,
  seq BIGINT NOT NULL,
  event BYTES NOT NULL,
  PRIMARY KEY (run_id, seq)))sql",
      "ALTER TABLE host_leases ADD COLUMN devices BIGINT NOT NULL DEFAULT 0"}},
    // Each variant result and speedup of an ended run as a row
    // (store/run_results.h), written by Finish, so that an assignment's
    // best results, speedups, points and failures are picked and counted
    // in SQL (RunStore::Results): kind 0 a VariantResult, 1 a Speedup, in
    // `part`; score its median in ms or its ratio. The indexes lead with
    // the label, as every assignment table filters by it; run_results_by_group
    // covers the best-per-group ranking (an index-only scan).
    {13,
     "run results",
     {R"sql(CREATE TABLE run_results (
  run_id TEXT NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
  kind INTEGER NOT NULL,
  position INTEGER NOT NULL,
  label TEXT NOT NULL,
  user_name TEXT NOT NULL,
  learner TEXT NOT NULL,
  op TEXT NOT NULL,
  status INTEGER NOT NULL,
  accepted_unix_ms BIGINT NOT NULL,
  submission_id TEXT NOT NULL,
  problem TEXT NOT NULL,
  dtype INTEGER NOT NULL,
  variant TEXT NOT NULL,
  baseline TEXT NOT NULL,
  verified INTEGER NOT NULL,
  score DOUBLE PRECISION NOT NULL,
  part BYTES NOT NULL,
  PRIMARY KEY (run_id, kind, position)))sql",
      "CREATE INDEX run_results_by_group ON run_results (label, kind, verified, learner, op, "
      "problem, dtype, variant, baseline, score, accepted_unix_ms, run_id, position, status)",
      "CREATE INDEX run_results_by_time ON run_results (label, kind, verified, "
      "accepted_unix_ms)"},
     BackfillRunResults},
    // run_results_by_group with each row's user last, so that an
    // instructor's tables, filtered to a cohort's users, rank from the
    // index alone too.
    {14,
     "run results by group and user",
     {"DROP INDEX run_results_by_group",
      "CREATE INDEX run_results_by_group ON run_results (label, kind, verified, learner, op, "
      "problem, dtype, variant, baseline, score, accepted_unix_ms, run_id, position, status, "
      "user_name)"}},
};

// Held by a PostgreSQL migration transaction, so that servers starting
// together apply each migration once.
constexpr int64_t kMigrationLockKey = 0x6b62656e6368;  // "kbench"

}  // namespace

std::vector<Migration> Migrations(SqlDialect dialect) {
  const bool sqlite = dialect == SqlDialect::kSqlite;
  const std::vector<std::pair<const char*, const char*>> spelling = {
      {"EMPTY_BYTES", sqlite ? "X''" : "''::bytea"}, {"BYTES", sqlite ? "BLOB" : "BYTEA"}};
  std::vector<Migration> migrations;
  for (const PortableMigration& portable : kMigrations) {
    Migration& migration = migrations.emplace_back();
    migration.version = portable.version;
    migration.description = portable.description;
    for (const char* statement : portable.statements) {
      migration.statements.push_back(absl::StrReplaceAll(statement, spelling));
    }
    migration.then = portable.then;
  }
  return migrations;
}

absl::Status ApplyMigrations(SqlDatabase& database) {
  const std::vector<Migration> migrations = Migrations(database.dialect());
  for (const Migration& migration : migrations) {
    KBENCH_RETURN_IF_ERROR(database.InTransaction([&]() -> absl::Status {
      if (database.dialect() == SqlDialect::kPostgres) {
        KBENCH_RETURN_IF_ERROR(
            database.Query("SELECT pg_advisory_xact_lock(?)", {kMigrationLockKey}).status());
      }
      KBENCH_RETURN_IF_ERROR(database
                                 .Execute("CREATE TABLE IF NOT EXISTS schema_version ("
                                          "version BIGINT PRIMARY KEY, description TEXT NOT NULL, "
                                          "applied_unix_ms BIGINT NOT NULL)",
                                          {})
                                 .status());
      KBENCH_ASSIGN_OR_RETURN(
          std::vector<SqlRow> newest,
          database.Query("SELECT version FROM schema_version ORDER BY version DESC LIMIT 1", {}));
      if (!newest.empty() && std::get<int64_t>(newest[0][0]) > migrations.back().version) {
        return absl::FailedPreconditionError(
            absl::StrCat("the store's schema is at version ", std::get<int64_t>(newest[0][0]),
                         ", newer than this server's ", migrations.back().version));
      }
      KBENCH_ASSIGN_OR_RETURN(
          std::vector<SqlRow> applied,
          database.Query("SELECT 1 FROM schema_version WHERE version = ?", {migration.version}));
      if (!applied.empty()) return absl::OkStatus();
      for (const std::string& statement : migration.statements) {
        KBENCH_RETURN_IF_ERROR(database.Execute(statement, {}).status());
      }
      if (migration.then != nullptr) KBENCH_RETURN_IF_ERROR(migration.then(database));
      return database
          .Execute(
              "INSERT INTO schema_version (version, description, applied_unix_ms) "
              "VALUES (?, ?, ?)",
              {migration.version, migration.description, NowUnixMs()})
          .status();
    }));
  }
  return absl::OkStatus();
}

}  // namespace kbench::server::store
