// The store's schema, as the ordered list of migrations that build it. A
// migration, once released, never changes: a new column or table is a new
// migration with the next version.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"

#include "server/store/sql_database.h"

namespace kbench::server::store {

struct Migration {
  int64_t version;
  std::string description;
  // Run in order, in one transaction, in the dialect's spelling.
  std::vector<std::string> statements;
  // Then this, in the same transaction (a backfill SQL cannot spell in both
  // dialects); null for most.
  absl::Status (*then)(SqlDatabase&) = nullptr;
};

// Every migration for `dialect`, by increasing version.
std::vector<Migration> Migrations(SqlDialect dialect);

// Applies, in order, each migration not yet recorded in the schema_version
// table, each in its own transaction (on PostgreSQL under an advisory lock);
// safe to call again and from several processes at once.
// FAILED_PRECONDITION when the store's schema is newer than this build's.
absl::Status ApplyMigrations(SqlDatabase& database);

}  // namespace kbench::server::store
