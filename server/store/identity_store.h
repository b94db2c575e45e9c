// Who may use the server: cohorts, users with a role and a bearer token,
// and invite codes that let a learner join a cohort. Kept in the results
// store's database (migrations 3 and 4), SQLite or PostgreSQL, over a
// connection of its own. Tokens and invite codes are stored only as their
// SHA-256 (server/identity/secret.h); the secret itself is returned once, by
// the call that makes it.
//
// Names (users and cohorts) are 1 to 64 of [A-Za-z0-9._-]; a bad one is
// INVALID_ARGUMENT naming the field and the rule. Every method may be called
// from any thread; calls are serialized inside, and each blocks on the
// database. Database failures are INTERNAL or UNAVAILABLE with its message.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "server/identity/principal.h"
#include "server/store/sql_database.h"

namespace kbench::server::store {

inline constexpr size_t kMaxNameLength = 64;
inline constexpr size_t kMaxEmailLength = 254;
inline constexpr int64_t kMaxInviteUses = 1000;
inline constexpr int64_t kMaxInviteHours = 24 * 30;
// The shortest token an operator may choose for the first admin (32 hex
// digits carry 128 bits, as `openssl rand -hex 16` makes).
inline constexpr size_t kMinBootstrapTokenLength = 32;
// The most users one roster import may add.
inline constexpr size_t kMaxRosterUsers = 10000;

struct NewUser {
  std::string name;
  auth::Role role = auth::Role::kLearner;
  // Required for learners and instructors (it must exist); empty for admins.
  std::string cohort;
  std::string email;
};

struct UserRecord {
  std::string name;
  std::string cohort;
  auth::Role role = auth::Role::kLearner;
  std::string email;
  int64_t created_unix_ms = 0;
  int64_t revoked_unix_ms = 0;  // 0 while the user's token is valid
};

// OK when `name` is a valid user or cohort name; else INVALID_ARGUMENT
// naming `field`.
absl::Status CheckName(const std::string& field, const std::string& name);

class IdentityStore {
 public:
  // Does not migrate; OpenIdentityStore does.
  explicit IdentityStore(std::unique_ptr<SqlDatabase> database);

  // ALREADY_EXISTS when the cohort exists.
  absl::Status AddCohort(const std::string& cohort);

  // Adds the users, all or none (one transaction), and returns each one's
  // new token, in order. ALREADY_EXISTS naming a user that exists (or is
  // given twice); NOT_FOUND naming a cohort that does not exist;
  // INVALID_ARGUMENT for a bad name, email, or a cohort on an admin (or none
  // on anyone else); over kMaxRosterUsers at once.
  absl::StatusOr<std::vector<std::string>> AddUsers(const std::vector<NewUser>& users);

  // The first admin of a store that has never had a user: `name` with the
  // token the operator chose (a Secret, a credential file), so a server
  // started with --auth on and an empty store can be used at once. Returns
  // true when the admin was added; false, adding nothing, when the store
  // has (or had: revoked users count) any user. INVALID_ARGUMENT for a bad
  // name or a token shorter than kMinBootstrapTokenLength or with other
  // than printable, non-space ASCII.
  absl::StatusOr<bool> BootstrapAdmin(const std::string& name, const std::string& token);

  // The user's token stops working at once. NOT_FOUND for an unknown user,
  // FAILED_PRECONDITION when already revoked.
  absl::Status Revoke(const std::string& name);

  // Every user, by name.
  absl::StatusOr<std::vector<UserRecord>> ListUsers();

  // Users whose token is valid; the server turns authentication on when
  // there is any.
  absl::StatusOr<int64_t> CountActiveUsers();

  // The user a token belongs to; NOT_FOUND when it belongs to no user or
  // to a revoked one.
  absl::StatusOr<auth::Principal> FindByToken(const std::string& token);

  // One user, revoked or not; NOT_FOUND when unknown.
  absl::StatusOr<UserRecord> FindUser(const std::string& name);

  // A new invite code to `cohort` (which must exist), good for `uses`
  // logins (1..kMaxInviteUses) until `expires_unix_ms`.
  absl::StatusOr<std::string> CreateInvite(const std::string& cohort, int64_t uses,
                                           int64_t expires_unix_ms,
                                           const std::string& created_by);

  // Redeems an invite code: a new learner `name` in the invite's cohort,
  // and their token. PERMISSION_DENIED when the code is unknown, expired or
  // used up (saying which); ALREADY_EXISTS when the name is taken.
  absl::StatusOr<std::string> RedeemInvite(const std::string& code, const std::string& name,
                                           int64_t now_unix_ms);

 private:
  absl::Status InsertUser(const NewUser& user, const std::string& token, int64_t now);

  std::mutex mu_;
  const std::unique_ptr<SqlDatabase> database_;
};

// Opens the database that `spec` names (OpenDatabase) and migrates it.
absl::StatusOr<std::unique_ptr<IdentityStore>> OpenIdentityStore(const std::string& spec);

}  // namespace kbench::server::store
