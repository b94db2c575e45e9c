// SqlDatabase over a SQLite file: WAL journal (readers never wait for the
// writer), a busy timeout for other processes' locks, foreign keys on.
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "server/store/sql_database.h"

namespace kbench::server::store {

// Opens (creating when missing) the SQLite database file at `path`; its
// directory must exist.
absl::StatusOr<std::unique_ptr<SqlDatabase>> OpenSqliteDatabase(const std::string& path);

}  // namespace kbench::server::store
