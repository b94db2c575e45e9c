// The little of a SQL database that SqlRunStore needs, so that one store
// implementation runs on SQLite and on PostgreSQL. Statements are written
// with `?` placeholders, bound in order; values are never spliced into SQL.
//
// Not thread-safe: its owner serializes calls. Errors carry the database's
// message: UNAVAILABLE when the connection is lost, INTERNAL otherwise.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace kbench::server::store {

// Binary data, bound and read as a BLOB (SQLite) or BYTEA (PostgreSQL).
struct SqlBytes {
  std::string data;
};

// A statement parameter or a column of a result row: integer columns read
// as int64_t, floating-point ones (DOUBLE PRECISION) as double, binary ones
// as SqlBytes, everything else as text.
using SqlValue = std::variant<int64_t, std::string, SqlBytes, double>;
using SqlRow = std::vector<SqlValue>;

enum class SqlDialect { kSqlite, kPostgres };

class SqlDatabase {
 public:
  virtual ~SqlDatabase() = default;

  virtual SqlDialect dialect() const = 0;

  // Runs one statement and returns its rows (none for a statement that
  // returns none).
  virtual absl::StatusOr<std::vector<SqlRow>> Query(const std::string& sql,
                                                    const std::vector<SqlValue>& params) = 0;

  // Runs one statement that returns no rows; returns how many rows it
  // inserted, updated or deleted.
  virtual absl::StatusOr<int64_t> Execute(const std::string& sql,
                                          const std::vector<SqlValue>& params) = 0;

  // Runs `body` in one transaction (on SQLite, holding the write lock from
  // its start): committed when body returns OK, rolled back otherwise, and
  // body's error returned. Not nested.
  virtual absl::Status InTransaction(const std::function<absl::Status()>& body) = 0;
};

// Opens the database that `spec` names, as OpenStore (run_store.h) reads
// it: a postgresql:// or postgres:// URL, else a SQLite file path (its
// directory created when missing). Does not migrate.
absl::StatusOr<std::unique_ptr<SqlDatabase>> OpenDatabase(const std::string& spec);

}  // namespace kbench::server::store
