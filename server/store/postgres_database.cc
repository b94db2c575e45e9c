#include "server/store/postgres_database.h"

#include <optional>
#include <utility>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "kernels/common/status_macros.h"
#include "pqxx/pqxx"

namespace kbench::server::store {
namespace {

// Type OIDs of the columns that do not read as text.
constexpr pqxx::oid kInt8Oid = 20;
constexpr pqxx::oid kInt2Oid = 21;
constexpr pqxx::oid kInt4Oid = 23;
constexpr pqxx::oid kByteaOid = 17;
constexpr pqxx::oid kFloat8Oid = 701;

// `?` placeholders to PostgreSQL's $1, $2, ... (the statements of the store
// have no `?` in literals).
std::string Numbered(const std::string& sql) {
  std::string out;
  int n = 0;
  for (char c : sql) {
    if (c == '?') {
      absl::StrAppend(&out, "$", ++n);
    } else {
      out.push_back(c);
    }
  }
  return out;
}

// Every parameter goes as text; bytes in BYTEA's hex input format.
std::vector<std::string> AsText(const std::vector<SqlValue>& params) {
  std::vector<std::string> text;
  text.reserve(params.size());
  for (const SqlValue& value : params) {
    if (const auto* number = std::get_if<int64_t>(&value)) {
      text.push_back(absl::StrCat(*number));
    } else if (const auto* real = std::get_if<double>(&value)) {
      text.push_back(absl::StrFormat("%.17g", *real));  // every bit of the double
    } else if (const auto* string = std::get_if<std::string>(&value)) {
      text.push_back(*string);
    } else {
      text.push_back(absl::StrCat("\\x", absl::BytesToHexString(std::get<SqlBytes>(value).data)));
    }
  }
  return text;
}

SqlValue Column(const pqxx::field& field) {
  switch (field.type()) {
    case kInt2Oid:
    case kInt4Oid:
    case kInt8Oid:
      return field.as<int64_t>();
    case kFloat8Oid:
      return field.as<double>();
    case kByteaOid:
      return SqlBytes{pqxx::binarystring(field).str()};
    default:
      return std::string(field.c_str(), field.size());
  }
}

class PostgresDatabase final : public SqlDatabase {
 public:
  PostgresDatabase(std::string url, std::unique_ptr<pqxx::connection> connection)
      : url_(std::move(url)), connection_(std::move(connection)) {}

  SqlDialect dialect() const override { return SqlDialect::kPostgres; }

  absl::StatusOr<std::vector<SqlRow>> Query(const std::string& sql,
                                            const std::vector<SqlValue>& params) override {
    std::vector<SqlRow> rows;
    absl::Status status = Run(sql, params, [&](const pqxx::result& result) {
      for (const pqxx::row& source : result) {
        SqlRow& row = rows.emplace_back();
        for (const pqxx::field& field : source) row.push_back(Column(field));
      }
    });
    if (!status.ok()) return status;
    return rows;
  }

  absl::StatusOr<int64_t> Execute(const std::string& sql,
                                  const std::vector<SqlValue>& params) override {
    int64_t changed = 0;
    absl::Status status =
        Run(sql, params, [&](const pqxx::result& result) { changed = result.affected_rows(); });
    if (!status.ok()) return status;
    return changed;
  }

  absl::Status InTransaction(const std::function<absl::Status()>& body) override {
    // A transaction whose connection broke before its COMMIT committed
    // nothing: it runs again once, on a new connection. A COMMIT that broke
    // may have committed, so it is not repeated.
    absl::Status status = Attempt(body);
    if (connection_broken_) status = Attempt(body);
    return status;
  }

 private:
  // One BEGIN, body, COMMIT (or ROLLBACK when the body failed), on a
  // connection made anew first if the last one broke.
  absl::Status Attempt(const std::function<absl::Status()>& body) {
    connection_broken_ = false;
    KBENCH_RETURN_IF_ERROR(EnsureConnected());
    try {
      transaction_.emplace(*connection_);
    } catch (const std::exception& e) {
      return Error(e, "BEGIN");
    }
    absl::Status status = body();
    if (connection_broken_) {
      transaction_.reset();  // the server already dropped it
      return status;
    }
    try {
      if (status.ok()) {
        transaction_->commit();
      } else {
        transaction_->abort();
      }
    } catch (const std::exception& e) {
      status = Error(e, "COMMIT");
      connection_broken_ = false;  // not to be run again: it may have committed
    }
    transaction_.reset();
    return status;
  }

  // A new connection when the last one broke (PostgreSQL restarted or
  // failed over); UNAVAILABLE while it cannot be made.
  absl::Status EnsureConnected() {
    if (connection_ != nullptr && !needs_connection_ && connection_->is_open())
      return absl::OkStatus();
    try {
      connection_ = std::make_unique<pqxx::connection>(url_);
      needs_connection_ = false;
      return absl::OkStatus();
    } catch (const std::exception& e) {
      // The URL may hold a password: name the error, not the URL.
      return absl::UnavailableError(
          absl::StrCat("cannot connect to the PostgreSQL store again: ", e.what()));
    }
  }

  // Runs one statement in the open transaction, or alone (autocommit) when
  // none is open, and hands its result to `read`. Alone, a statement whose
  // connection broke runs once more on a new connection. It may have run
  // before the break: the store's statements outside transactions are
  // idempotent (updates to a state, inserts that do nothing on a conflict),
  // so running one twice changes nothing more than running it once.
  template <typename Read>
  absl::Status Run(const std::string& sql, const std::vector<SqlValue>& params, Read read) {
    const std::string numbered = Numbered(sql);
    const std::vector<std::string> text = AsText(params);
    for (int attempt = 0;; ++attempt) {
      connection_broken_ = false;
      if (!transaction_) KBENCH_RETURN_IF_ERROR(EnsureConnected());
      try {
        if (transaction_) {
          read(transaction_->exec_params(numbered, pqxx::prepare::make_dynamic_params(text)));
        } else {
          pqxx::nontransaction alone(*connection_);
          read(alone.exec_params(numbered, pqxx::prepare::make_dynamic_params(text)));
        }
        return absl::OkStatus();
      } catch (const std::exception& e) {
        const absl::Status status = Error(e, sql);
        if (transaction_ || !connection_broken_ || attempt > 0) return status;
      }
    }
  }

  // The status of a failed statement; marks the connection broken when it
  // is.
  absl::Status Error(const std::exception& e, const std::string& sql) {
    const std::string message = absl::StrCat("postgresql: ", e.what(), " (in: ", sql, ")");
    if (dynamic_cast<const pqxx::broken_connection*>(&e) != nullptr) {
      connection_broken_ = true;
      needs_connection_ = true;
      return absl::UnavailableError(message);
    }
    return absl::InternalError(message);
  }

  const std::string url_;
  std::unique_ptr<pqxx::connection> connection_;
  std::optional<pqxx::work> transaction_;
  // The last statement failed because the connection broke; the next one
  // needs a new connection.
  bool connection_broken_ = false;
  bool needs_connection_ = false;
};

}  // namespace

absl::StatusOr<std::unique_ptr<SqlDatabase>> OpenPostgresDatabase(const std::string& url) {
  try {
    auto connection = std::make_unique<pqxx::connection>(url);
    return std::make_unique<PostgresDatabase>(url, std::move(connection));
  } catch (const std::exception& e) {
    // The URL may hold a password: name the error, not the URL.
    return absl::UnavailableError(
        absl::StrCat("cannot connect to the PostgreSQL store: ", e.what()));
  }
}

}  // namespace kbench::server::store
