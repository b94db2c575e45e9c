#include "server/store/identity_store.h"

#include <set>
#include <utility>
#include <variant>

#include "absl/strings/str_cat.h"
#include "kernels/common/status_macros.h"
#include "server/common/echo.h"
#include "server/identity/secret.h"
#include "server/store/migrations.h"
#include "server/store/unix_time.h"

namespace kbench::server::store {
namespace {

constexpr char kUserColumns[] = "name, cohort, role, email, created_unix_ms, revoked_unix_ms";

UserRecord UserFromRow(const SqlRow& row) {
  UserRecord user;
  user.name = std::get<std::string>(row[0]);
  user.cohort = std::get<std::string>(row[1]);
  user.role = static_cast<identity::Role>(std::get<int64_t>(row[2]));
  user.email = std::get<std::string>(row[3]);
  user.created_unix_ms = std::get<int64_t>(row[4]);
  user.revoked_unix_ms = std::get<int64_t>(row[5]);
  return user;
}

absl::Status CheckNewUser(const NewUser& user) {
  KBENCH_RETURN_IF_ERROR(CheckName("name", user.name));
  if (user.email.size() > kMaxEmailLength) {
    return absl::InvalidArgumentError(absl::StrCat("email of ", user.name, ": ", user.email.size(),
                                                   " characters is over the limit of ",
                                                   kMaxEmailLength));
  }
  if (user.role == identity::Role::kAdmin) {
    if (!user.cohort.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("cohort: an admin (", user.name, ") belongs to no cohort"));
    }
    return absl::OkStatus();
  }
  if (user.cohort.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("cohort: ", std::string(identity::RoleWithArticle(user.role)), " (", user.name,
                     ") needs a cohort"));
  }
  return CheckName("cohort", user.cohort);
}

}  // namespace

absl::Status CheckName(const std::string& field, const std::string& name) {
  if (name.empty() || name.size() > kMaxNameLength) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, ": ", Echo(name), " must be 1 to ", kMaxNameLength, " characters"));
  }
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '_' || c == '-';
    if (!ok) {
      return absl::InvalidArgumentError(absl::StrCat(
          field, ": ", Echo(name), " may hold only letters, digits, '.', '_' and '-'"));
    }
  }
  return absl::OkStatus();
}

bool CouldBeToken(std::string_view token) {
  if (identity::LooksLikeSecret(token, identity::kTokenPrefix)) return true;
  if (token.size() < kMinBootstrapTokenLength || token.size() > kMaxTokenLength) return false;
  for (const char c : token)
    if (c <= ' ' || c > '~') return false;
  return true;
}

IdentityStore::IdentityStore(std::unique_ptr<SqlDatabase> database)
    : database_(std::move(database)) {}

absl::Status IdentityStore::AddCohort(const std::string& cohort) {
  KBENCH_RETURN_IF_ERROR(CheckName("cohort", cohort));
  std::lock_guard lock(mu_);
  KBENCH_ASSIGN_OR_RETURN(
      int64_t inserted,
      database_->Execute("INSERT INTO cohorts (name, created_unix_ms) VALUES (?, ?) "
                         "ON CONFLICT (name) DO NOTHING",
                         {cohort, NowUnixMs()}));
  if (inserted == 0) {
    return absl::AlreadyExistsError(absl::StrCat("cohort \"", cohort, "\" already exists"));
  }
  return absl::OkStatus();
}

absl::Status IdentityStore::InsertUser(const NewUser& user, const std::string& token, int64_t now) {
  if (!user.cohort.empty()) {
    KBENCH_ASSIGN_OR_RETURN(
        std::vector<SqlRow> cohort,
        database_->Query("SELECT 1 FROM cohorts WHERE name = ?", {user.cohort}));
    if (cohort.empty()) {
      return absl::NotFoundError(absl::StrCat("cohort: no cohort \"", user.cohort,
                                              "\" (add it with `kbench-server admin "
                                              "add-cohort ",
                                              user.cohort, "`)"));
    }
  }
  KBENCH_ASSIGN_OR_RETURN(std::vector<SqlRow> existing,
                          database_->Query("SELECT 1 FROM users WHERE name = ?", {user.name}));
  if (!existing.empty()) {
    return absl::AlreadyExistsError(absl::StrCat("user \"", user.name, "\" already exists"));
  }
  return database_
      ->Execute(
          "INSERT INTO users (name, cohort, role, email, token_sha256, created_unix_ms) "
          "VALUES (?, ?, ?, ?, ?, ?)",
          {user.name, user.cohort, int64_t{static_cast<int>(user.role)}, user.email,
           identity::SecretHash(token), now})
      .status();
}

absl::StatusOr<std::vector<std::string>> IdentityStore::AddUsers(
    const std::vector<NewUser>& users) {
  if (users.size() > kMaxRosterUsers) {
    return absl::InvalidArgumentError(
        absl::StrCat("users: ", users.size(), " at once is over the limit of ", kMaxRosterUsers));
  }
  std::set<std::string> names;
  std::vector<std::string> tokens;
  for (const NewUser& user : users) {
    KBENCH_RETURN_IF_ERROR(CheckNewUser(user));
    if (!names.insert(user.name).second) {
      return absl::AlreadyExistsError(
          absl::StrCat("user \"", user.name, "\" is given more than once"));
    }
    KBENCH_ASSIGN_OR_RETURN(tokens.emplace_back(), identity::NewSecret(identity::kTokenPrefix));
  }
  const int64_t now = NowUnixMs();
  std::lock_guard lock(mu_);
  KBENCH_RETURN_IF_ERROR(database_->InTransaction([&]() -> absl::Status {
    for (size_t i = 0; i < users.size(); ++i) {
      KBENCH_RETURN_IF_ERROR(InsertUser(users[i], tokens[i], now));
    }
    return absl::OkStatus();
  }));
  return tokens;
}

absl::StatusOr<bool> IdentityStore::BootstrapAdmin(const std::string& name,
                                                   const std::string& token) {
  const NewUser admin{name, identity::Role::kAdmin, "", ""};
  KBENCH_RETURN_IF_ERROR(CheckNewUser(admin));
  if (token.size() < kMinBootstrapTokenLength || token.size() > kMaxTokenLength) {
    return absl::InvalidArgumentError(absl::StrCat(
        "bootstrap token: ", token.size(), " characters is ",
        token.size() < kMinBootstrapTokenLength ? "under the minimum of " : "over the maximum of ",
        token.size() < kMinBootstrapTokenLength ? kMinBootstrapTokenLength : kMaxTokenLength,
        " (make one with `openssl rand -hex 32`)"));
  }
  for (const char c : token) {
    if (c <= ' ' || c > '~') {
      return absl::InvalidArgumentError(
          "bootstrap token: only printable ASCII without spaces is allowed");
    }
  }
  std::lock_guard lock(mu_);
  bool added = false;
  KBENCH_RETURN_IF_ERROR(database_->InTransaction([&]() -> absl::Status {
    KBENCH_ASSIGN_OR_RETURN(std::vector<SqlRow> any,
                            database_->Query("SELECT 1 FROM users LIMIT 1", {}));
    if (!any.empty()) return absl::OkStatus();
    KBENCH_RETURN_IF_ERROR(InsertUser(admin, token, NowUnixMs()));
    added = true;
    return absl::OkStatus();
  }));
  return added;
}

absl::Status IdentityStore::Revoke(const std::string& name) {
  std::lock_guard lock(mu_);
  return database_->InTransaction([&]() -> absl::Status {
    KBENCH_ASSIGN_OR_RETURN(
        int64_t updated,
        database_->Execute(
            "UPDATE users SET revoked_unix_ms = ? WHERE name = ? AND revoked_unix_ms = 0",
            {NowUnixMs(), name}));
    if (updated == 1) {
      // An instructor's codes would otherwise go on adding learners to a
      // cohort they no longer teach.
      return database_->Execute("DELETE FROM invites WHERE created_by = ?", {name}).status();
    }
    KBENCH_ASSIGN_OR_RETURN(std::vector<SqlRow> rows,
                            database_->Query("SELECT 1 FROM users WHERE name = ?", {name}));
    if (rows.empty()) return absl::NotFoundError(absl::StrCat("no user \"", name, "\""));
    return absl::FailedPreconditionError(absl::StrCat("user \"", name, "\" is already revoked"));
  });
}

absl::StatusOr<std::vector<std::string>> IdentityStore::RevokedUsers() {
  std::lock_guard lock(mu_);
  KBENCH_ASSIGN_OR_RETURN(
      std::vector<SqlRow> rows,
      database_->Query("SELECT name FROM users WHERE revoked_unix_ms != 0", {}));
  std::vector<std::string> names;
  for (const SqlRow& row : rows) names.push_back(std::get<std::string>(row[0]));
  return names;
}

absl::StatusOr<std::vector<UserRecord>> IdentityStore::ListUsers() {
  std::lock_guard lock(mu_);
  KBENCH_ASSIGN_OR_RETURN(
      std::vector<SqlRow> rows,
      database_->Query(absl::StrCat("SELECT ", kUserColumns, " FROM users ORDER BY name"), {}));
  std::vector<UserRecord> users;
  for (const SqlRow& row : rows) users.push_back(UserFromRow(row));
  return users;
}

absl::StatusOr<int64_t> IdentityStore::CountActiveUsers() {
  std::lock_guard lock(mu_);
  KBENCH_ASSIGN_OR_RETURN(
      std::vector<SqlRow> rows,
      database_->Query("SELECT COUNT(*) FROM users WHERE revoked_unix_ms = 0", {}));
  return std::get<int64_t>(rows[0][0]);
}

absl::StatusOr<bool> IdentityStore::HadUsers() {
  std::lock_guard lock(mu_);
  KBENCH_ASSIGN_OR_RETURN(std::vector<SqlRow> rows,
                          database_->Query("SELECT 1 FROM users LIMIT 1", {}));
  return !rows.empty();
}

absl::StatusOr<identity::Principal> IdentityStore::FindByToken(const std::string& token) {
  std::lock_guard lock(mu_);
  KBENCH_ASSIGN_OR_RETURN(std::vector<SqlRow> rows,
                          database_->Query(absl::StrCat("SELECT ", kUserColumns,
                                                        " FROM users WHERE token_sha256 = ? AND "
                                                        "revoked_unix_ms = 0"),
                                           {identity::SecretHash(token)}));
  if (rows.empty()) return absl::NotFoundError("the token belongs to no active user");
  const UserRecord user = UserFromRow(rows[0]);
  return identity::Principal{user.name, user.cohort, user.role};
}

absl::StatusOr<UserRecord> IdentityStore::FindUser(const std::string& name) {
  std::lock_guard lock(mu_);
  KBENCH_ASSIGN_OR_RETURN(
      std::vector<SqlRow> rows,
      database_->Query(absl::StrCat("SELECT ", kUserColumns, " FROM users WHERE name = ?"),
                       {name}));
  if (rows.empty()) return absl::NotFoundError(absl::StrCat("no user \"", name, "\""));
  return UserFromRow(rows[0]);
}

absl::StatusOr<std::string> IdentityStore::CreateInvite(const std::string& cohort, int64_t uses,
                                                        int64_t expires_unix_ms,
                                                        const std::string& created_by) {
  KBENCH_RETURN_IF_ERROR(CheckName("cohort", cohort));
  if (uses < 1 || uses > kMaxInviteUses) {
    return absl::InvalidArgumentError(
        absl::StrCat("uses: ", uses, " is not within 1..", kMaxInviteUses));
  }
  KBENCH_ASSIGN_OR_RETURN(std::string code, identity::NewSecret(identity::kInvitePrefix));
  std::lock_guard lock(mu_);
  KBENCH_ASSIGN_OR_RETURN(std::vector<SqlRow> rows,
                          database_->Query("SELECT 1 FROM cohorts WHERE name = ?", {cohort}));
  if (rows.empty()) return absl::NotFoundError(absl::StrCat("cohort: no cohort \"", cohort, "\""));
  KBENCH_RETURN_IF_ERROR(
      database_
          ->Execute(
              "INSERT INTO invites (code_sha256, cohort, created_by, uses_left, "
              "expires_unix_ms, created_unix_ms) VALUES (?, ?, ?, ?, ?, ?)",
              {identity::SecretHash(code), cohort, created_by, uses, expires_unix_ms, NowUnixMs()})
          .status());
  return code;
}

absl::StatusOr<std::vector<InviteRecord>> IdentityStore::ListInvites(const std::string& cohort,
                                                                     int64_t now_unix_ms) {
  std::string sql =
      "SELECT code_sha256, cohort, created_by, uses_left, expires_unix_ms, created_unix_ms "
      "FROM invites WHERE uses_left > 0 AND expires_unix_ms > ?";
  std::vector<SqlValue> params = {now_unix_ms};
  if (!cohort.empty()) {
    sql += " AND cohort = ?";
    params.push_back(cohort);
  }
  sql += " ORDER BY created_unix_ms DESC, code_sha256";
  std::lock_guard lock(mu_);
  KBENCH_ASSIGN_OR_RETURN(std::vector<SqlRow> rows, database_->Query(sql, params));
  std::vector<InviteRecord> invites;
  for (const SqlRow& row : rows) {
    invites.push_back({std::get<std::string>(row[0]).substr(0, kInviteIdLength),
                       std::get<std::string>(row[1]), std::get<std::string>(row[2]),
                       std::get<int64_t>(row[3]), std::get<int64_t>(row[4]),
                       std::get<int64_t>(row[5])});
  }
  return invites;
}

absl::Status IdentityStore::RevokeInvite(const std::string& id) {
  if (id.size() != kInviteIdLength ||
      id.find_first_not_of("0123456789abcdef") != std::string::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat("invite id: \"", id.substr(0, kInviteIdLength + 1), "\" is not ",
                     kInviteIdLength, " lowercase hex digits (the ID column of the invite list)"));
  }
  std::lock_guard lock(mu_);
  // The prefix is hex only (checked above), so LIKE sees no wildcard in it.
  KBENCH_ASSIGN_OR_RETURN(
      int64_t deleted,
      database_->Execute("DELETE FROM invites WHERE code_sha256 LIKE ?", {id + "%"}));
  if (deleted == 0) return absl::NotFoundError(absl::StrCat("no invite ", id));
  return absl::OkStatus();
}

absl::StatusOr<std::string> IdentityStore::RedeemInvite(const std::string& code,
                                                        const std::string& name,
                                                        int64_t now_unix_ms) {
  KBENCH_RETURN_IF_ERROR(CheckName("name", name));
  KBENCH_ASSIGN_OR_RETURN(std::string token, identity::NewSecret(identity::kTokenPrefix));
  std::lock_guard lock(mu_);
  const std::string code_hash = identity::SecretHash(code);
  KBENCH_RETURN_IF_ERROR(database_->InTransaction([&]() -> absl::Status {
    // Taking a use first, conditionally, keeps two logins at once from
    // both taking the last one (PostgreSQL re-checks the row it waited for).
    // A code whose creator was revoked is dead even where it was made
    // before Revoke deleted a revoked user's codes.
    KBENCH_ASSIGN_OR_RETURN(
        int64_t taken,
        database_->Execute("UPDATE invites SET uses_left = uses_left - 1 WHERE code_sha256 = ? "
                           "AND uses_left > 0 AND expires_unix_ms > ? AND created_by NOT IN "
                           "(SELECT name FROM users WHERE revoked_unix_ms != 0)",
                           {code_hash, now_unix_ms}));
    KBENCH_ASSIGN_OR_RETURN(
        std::vector<SqlRow> rows,
        database_->Query("SELECT cohort, uses_left, expires_unix_ms FROM invites "
                         "WHERE code_sha256 = ?",
                         {code_hash}));
    if (rows.empty()) {
      return absl::PermissionDeniedError(
          "invite: not an invite code of this server, or one that was revoked (ask your "
          "instructor for one)");
    }
    if (taken == 0) {
      const char* why = std::get<int64_t>(rows[0][1]) <= 0 ? "has been used up"
                        : std::get<int64_t>(rows[0][2]) <= now_unix_ms
                            ? "has expired"
                            : "was made by a user whose access was revoked";
      return absl::PermissionDeniedError(
          absl::StrCat("invite: this code ", why, " (ask your instructor for a new one)"));
    }
    return InsertUser(
        NewUser{name, identity::Role::kLearner, std::get<std::string>(rows[0][0]), ""}, token,
        now_unix_ms);
  }));
  return token;
}

absl::StatusOr<std::unique_ptr<IdentityStore>> OpenIdentityStore(const std::string& spec) {
  KBENCH_ASSIGN_OR_RETURN(std::unique_ptr<SqlDatabase> database, OpenDatabase(spec));
  KBENCH_RETURN_IF_ERROR(ApplyMigrations(*database));
  return std::make_unique<IdentityStore>(std::move(database));
}

}  // namespace kbench::server::store
