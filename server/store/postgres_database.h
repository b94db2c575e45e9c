// SqlDatabase over one PostgreSQL connection (libpqxx).
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "server/store/sql_database.h"

namespace kbench::server::store {

// Connects to the database that `url` names (postgresql://user@host:port/db).
absl::StatusOr<std::unique_ptr<SqlDatabase>> OpenPostgresDatabase(const std::string& url);

}  // namespace kbench::server::store
