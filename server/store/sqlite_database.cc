#include "server/store/sqlite_database.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "kernels/common/status_macros.h"

namespace kbench::server::store {
namespace {

// How long a statement waits for another connection's lock before failing.
constexpr int kBusyTimeoutMs = 5000;

struct CloseDatabase {
  void operator()(sqlite3* db) const { sqlite3_close_v2(db); }
};
struct FinalizeStatement {
  void operator()(sqlite3_stmt* statement) const { sqlite3_finalize(statement); }
};
using StatementPtr = std::unique_ptr<sqlite3_stmt, FinalizeStatement>;

class SqliteDatabase final : public SqlDatabase {
 public:
  explicit SqliteDatabase(sqlite3* db) : db_(db) {}

  SqlDialect dialect() const override { return SqlDialect::kSqlite; }

  absl::StatusOr<std::vector<SqlRow>> Query(const std::string& sql,
                                            const std::vector<SqlValue>& params) override {
    KBENCH_ASSIGN_OR_RETURN(StatementPtr statement, Prepare(sql, params));
    std::vector<SqlRow> rows;
    while (true) {
      const int rc = sqlite3_step(statement.get());
      if (rc == SQLITE_DONE) return rows;
      if (rc != SQLITE_ROW) return Error(sql);
      SqlRow& row = rows.emplace_back();
      const int columns = sqlite3_column_count(statement.get());
      for (int i = 0; i < columns; ++i) row.push_back(Column(statement.get(), i));
    }
  }

  absl::StatusOr<int64_t> Execute(const std::string& sql,
                                  const std::vector<SqlValue>& params) override {
    KBENCH_ASSIGN_OR_RETURN(StatementPtr statement, Prepare(sql, params));
    int rc;
    while ((rc = sqlite3_step(statement.get())) == SQLITE_ROW) {
    }
    if (rc != SQLITE_DONE) return Error(sql);
    return sqlite3_changes64(db_.get());
  }

  absl::Status InTransaction(const std::function<absl::Status()>& body) override {
    // IMMEDIATE takes the write lock now, so two writers never deadlock
    // upgrading read locks.
    KBENCH_RETURN_IF_ERROR(Execute("BEGIN IMMEDIATE", {}).status());
    absl::Status status = body();
    if (status.ok()) status = Execute("COMMIT", {}).status();
    if (!status.ok()) sqlite3_exec(db_.get(), "ROLLBACK", nullptr, nullptr, nullptr);
    return status;
  }

 private:
  absl::StatusOr<StatementPtr> Prepare(const std::string& sql,
                                       const std::vector<SqlValue>& params) {
    sqlite3_stmt* raw = nullptr;
    if (sqlite3_prepare_v2(db_.get(), sql.data(), static_cast<int>(sql.size()), &raw, nullptr) !=
        SQLITE_OK) {
      return Error(sql);
    }
    StatementPtr statement(raw);
    for (size_t i = 0; i < params.size(); ++i) {
      const int index = static_cast<int>(i) + 1;
      const SqlValue& value = params[i];
      int rc;
      if (const auto* number = std::get_if<int64_t>(&value)) {
        rc = sqlite3_bind_int64(raw, index, *number);
      } else if (const auto* real = std::get_if<double>(&value)) {
        rc = sqlite3_bind_double(raw, index, *real);
      } else if (const auto* text = std::get_if<std::string>(&value)) {
        rc = sqlite3_bind_text64(raw, index, text->data(), text->size(), SQLITE_TRANSIENT,
                                 SQLITE_UTF8);
      } else {
        const std::string& data = std::get<SqlBytes>(value).data;
        rc = sqlite3_bind_blob64(raw, index, data.data(), data.size(), SQLITE_TRANSIENT);
      }
      if (rc != SQLITE_OK) return Error(sql);
    }
    return statement;
  }

  static SqlValue Column(sqlite3_stmt* statement, int i) {
    switch (sqlite3_column_type(statement, i)) {
      case SQLITE_INTEGER:
        return static_cast<int64_t>(sqlite3_column_int64(statement, i));
      case SQLITE_FLOAT:
        return sqlite3_column_double(statement, i);
      case SQLITE_BLOB: {
        const auto* data = static_cast<const char*>(sqlite3_column_blob(statement, i));
        if (data == nullptr) return SqlBytes{};  // an empty blob
        return SqlBytes{std::string(data, sqlite3_column_bytes(statement, i))};
      }
      default: {
        const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(statement, i));
        if (text == nullptr) return std::string();
        return std::string(text, sqlite3_column_bytes(statement, i));
      }
    }
  }

  absl::Status Error(const std::string& sql) const {
    return absl::InternalError(
        absl::StrCat("sqlite: ", sqlite3_errmsg(db_.get()), " (in: ", sql, ")"));
  }

  std::unique_ptr<sqlite3, CloseDatabase> db_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<SqlDatabase>> OpenSqliteDatabase(const std::string& path) {
  // The store holds token hashes, every learner's runs and their addresses:
  // made readable by its owner only, whatever the umask (SQLite gives its
  // -wal and -shm files the database's mode).
  if (const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600); fd >= 0) {
    ::close(fd);
  } else if (errno != EEXIST) {
    return absl::UnavailableError(
        absl::StrCat("cannot create the SQLite store ", path, ": ", std::strerror(errno)));
  }
  sqlite3* raw = nullptr;
  const int rc =
      sqlite3_open_v2(path.c_str(), &raw, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
  std::unique_ptr<sqlite3, CloseDatabase> db(raw);
  if (rc != SQLITE_OK) {
    return absl::UnavailableError(
        absl::StrCat("cannot open the SQLite store ", path, ": ",
                     raw != nullptr ? sqlite3_errmsg(raw) : sqlite3_errstr(rc)));
  }
  sqlite3_busy_timeout(db.get(), kBusyTimeoutMs);
  // NORMAL synchronous in WAL mode survives a crash of the process (not
  // of the machine) without an fsync per transaction.
  char* error = nullptr;
  if (sqlite3_exec(db.get(),
                   "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; "
                   "PRAGMA foreign_keys = ON;",
                   nullptr, nullptr, &error) != SQLITE_OK) {
    const std::string message = error != nullptr ? error : "unknown error";
    sqlite3_free(error);
    return absl::InternalError(
        absl::StrCat("cannot set up the SQLite store ", path, ": ", message));
  }
  return std::make_unique<SqliteDatabase>(db.release());
}

}  // namespace kbench::server::store
