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
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "server/identity/principal.h"
#include "server/store/sql_database.h"

namespace kbench::server::store {

inline constexpr size_t kMaxNameLength = 64;
inline constexpr size_t kMaxEmailLength = 254;
// The most logins one invite code allows: a cohort's size. A code that
// travels further than its cohort (a chat, a slide) is good for no more.
inline constexpr int64_t kMaxInviteUses = 200;
inline constexpr int64_t kMaxInviteHours = 24 * 30;
// The shortest token an operator may choose for the first admin (32 hex
// digits carry 128 bits, as `openssl rand -hex 16` makes).
inline constexpr size_t kMinBootstrapTokenLength = 32;
// The longest token the store takes (a bootstrap admin's; the ones it
// makes are 47 characters).
inline constexpr size_t kMaxTokenLength = 512;
// The most users one roster import may add.
inline constexpr size_t kMaxRosterUsers = 10000;

struct NewUser {
  std::string name;
  identity::Role role = identity::Role::kLearner;
  // Required for learners and instructors (it must exist); empty for admins.
  std::string cohort;
  std::string email;
};

// An invite code as the store keeps it (never the code itself). `id` is
// the first kInviteIdLength hex digits of the code's SHA-256: it names the
// invite in listings and revocation without being a usable code.
inline constexpr size_t kInviteIdLength = 12;
struct InviteRecord {
  std::string id;
  std::string cohort;
  std::string created_by;
  int64_t uses_left = 0;
  int64_t expires_unix_ms = 0;
  int64_t created_unix_ms = 0;
};

struct UserRecord {
  std::string name;
  std::string cohort;
  identity::Role role = identity::Role::kLearner;
  std::string email;
  int64_t created_unix_ms = 0;
  int64_t revoked_unix_ms = 0;  // 0 while the user's token is valid
};

// OK when `name` is a valid user or cohort name; else INVALID_ARGUMENT
// naming `field`.
absl::Status CheckName(const std::string& field, const std::string& name);

// Whether `token` could belong to a user: one the store made (NewSecret
// with kTokenPrefix) or a bootstrap admin's (kMinBootstrapTokenLength to
// kMaxTokenLength printable ASCII characters without spaces). Lets the
// authenticator turn anything else away without a query.
bool CouldBeToken(std::string_view token);

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

  // The user's token stops working (for a running server: within its
  // revocation watch's period, revocation_watch.h) and the invite codes
  // they made are deleted, in one transaction. NOT_FOUND for an unknown
  // user, FAILED_PRECONDITION when already revoked.
  absl::Status Revoke(const std::string& name);

  // The names of every revoked user (users are never deleted, so this only
  // grows).
  absl::StatusOr<std::vector<std::string>> RevokedUsers();

  // Every user, by name.
  absl::StatusOr<std::vector<UserRecord>> ListUsers();

  // Users whose token is valid.
  absl::StatusOr<int64_t> CountActiveUsers();

  // Whether the store has ever had a user, revoked ones included: what
  // `--auth auto` turns authentication on for (a store whose users were all
  // revoked keeps it on).
  absl::StatusOr<bool> HadUsers();

  // The user a token belongs to; NOT_FOUND when it belongs to no user or
  // to a revoked one.
  absl::StatusOr<identity::Principal> FindByToken(const std::string& token);

  // One user, revoked or not; NOT_FOUND when unknown.
  absl::StatusOr<UserRecord> FindUser(const std::string& name);

  // A new invite code to `cohort` (which must exist), good for `uses`
  // logins (1..kMaxInviteUses) until `expires_unix_ms`.
  absl::StatusOr<std::string> CreateInvite(const std::string& cohort, int64_t uses,
                                           int64_t expires_unix_ms, const std::string& created_by);

  // The invites that can still be redeemed (uses left, not expired at
  // `now_unix_ms`), of `cohort` (every cohort when empty), newest first.
  absl::StatusOr<std::vector<InviteRecord>> ListInvites(const std::string& cohort,
                                                        int64_t now_unix_ms);

  // Deletes the invite whose id (InviteRecord.id) is `id`: its code stops
  // working. INVALID_ARGUMENT for an id that is not kInviteIdLength hex
  // digits; NOT_FOUND when no invite has it.
  absl::Status RevokeInvite(const std::string& id);

  // Redeems an invite code: a new learner `name` in the invite's cohort,
  // and their token. PERMISSION_DENIED when the code is unknown (or
  // revoked, or its creator was), expired or used up (saying which);
  // ALREADY_EXISTS when the name is taken.
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
