// A real PostgreSQL 15 for tests: a fresh cluster made by initdb in a
// temporary directory, served by postgres on a free port of 127.0.0.1 (its
// Unix socket in that directory too), trust authentication, fsync off. As
// root (CI), initdb and postgres run as the `postgres` user through
// runuser, which owns the directory. The binaries are looked for in
// $KBENCH_PG_BIN, else /usr/lib/postgresql/15/bin; when they are missing,
// Start fails saying so (scripts/install-deps.sh installs them).
#pragma once

#include <memory>
#include <ostream>
#include <string>

#include "absl/status/statusor.h"
#include "tests/temp_dir.h"

namespace kbench::testing {

class PostgresServer {
 public:
  static absl::StatusOr<std::unique_ptr<PostgresServer>> Start();
  // Stops the server (immediate shutdown) and removes its directory.
  ~PostgresServer();

  // A new, empty database; returns its postgresql:// URL.
  absl::StatusOr<std::string> CreateDatabase();

  // Stops the server at once (as a crash does: connections break, nothing
  // is flushed) and starts it again on the same port and data.
  absl::Status Restart();

 private:
  PostgresServer(std::string bin, int port);
  // pg_ctl start on port_ (waits until it accepts connections).
  absl::Status StartOnPort();
  absl::Status StopNow();

  TempDir dir_;
  std::string bin_;
  int port_;
  bool running_ = false;
  int databases_ = 0;
};

// The test program's one server: started at the first call, stopped when
// the tests end. Every call after a failed start returns that failure.
absl::StatusOr<PostgresServer*> SharedPostgres();

// The engines the store tests run on, and a fresh, empty store of one as
// the spec OpenStore takes: a SQLite file in a directory under `dir` that
// does not exist yet (opening makes it), or a new database on
// SharedPostgres().
enum class StoreEngine { kSqlite, kPostgres };
// "Sqlite" or "Postgres": test names and gtest's printing.
std::string StoreEngineName(StoreEngine engine);
void PrintTo(StoreEngine engine, std::ostream* os);
absl::StatusOr<std::string> FreshStoreSpec(StoreEngine engine, const std::string& dir);

}  // namespace kbench::testing
