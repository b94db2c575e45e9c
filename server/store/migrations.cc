#include "server/store/migrations.h"


#include "absl/strings/str_replace.h"

namespace kbench::server::store {
namespace {

struct PortableMigration {
  int64_t version;
  const char* description;
  // BYTES and EMPTY_BYTES stand for the dialect's binary type and its empty
  // value; everything else is the same SQL on SQLite and PostgreSQL.
  std::vector<const char*> statements;
};

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
    {2,
     "run_samples",
     {R"sql(CREATE TABLE run_samples (
  run_id TEXT NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
  position INTEGER NOT NULL,
  series BYTES NOT NULL,
  PRIMARY KEY (run_id, position)))sql"}},
    // Versions 3 to 9 belong to identities (server/auth).
    {10,
     "runs_by_user_end",
     {"CREATE INDEX runs_by_user_end ON runs (user_name, ended_unix_ms)"}},
    // cohort_quotas: a cohort's own quotas (a serialized QuotaOverrides).
    {11,
     "cohort_quotas",
     {R"sql(CREATE TABLE cohort_quotas (
  cohort TEXT PRIMARY KEY,
  overrides BYTES NOT NULL,
  updated_unix_ms BIGINT NOT NULL))sql"}},
};

}  // namespace

std::vector<Migration> Migrations(SqlDialect dialect) {
  const bool sqlite = dialect == SqlDialect::kSqlite;
  const std::vector<std::pair<const char*, const char*>> spelling = {
      {"EMPTY_BYTES", sqlite ? "X''" : "''::bytea"},
      {"BYTES", sqlite ? "BLOB" : "BYTEA"}};
  std::vector<Migration> migrations;
  for (const PortableMigration& portable : kMigrations) {
    Migration& migration = migrations.emplace_back();
    migration.version = portable.version;
    migration.description = portable.description;
    for (const char* statement : portable.statements) {
      migration.statements.push_back(absl::StrReplaceAll(statement, spelling));
    }
  }
  return migrations;
}

}  // namespace kbench::server::store
