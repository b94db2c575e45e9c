#include "server/app/admin_command.h"

#include <fstream>
#include <iostream>
#include <memory>
#include <vector>

#include "absl/strings/str_format.h"
#include "absl/time/time.h"
#include "server/app/roster.h"
#include "server/store/identity_store.h"
#include "server/store/unix_time.h"

namespace kbench::server {
namespace {

identity::Role RoleOf(const std::string& name) {
  if (name == "admin") return identity::Role::kAdmin;
  if (name == "instructor") return identity::Role::kInstructor;
  return identity::Role::kLearner;
}

std::string TimeText(int64_t unix_ms) {
  if (unix_ms == 0) return "-";
  return absl::FormatTime("%Y-%m-%d %H:%M", absl::FromUnixMillis(unix_ms), absl::UTCTimeZone());
}

}  // namespace

AdminCommandLine::AdminCommandLine(CLI::App& app) {
  admin_ = app.add_subcommand(
      "admin",
      "Manage users, cohorts and tokens in the store (--store, the server's default "
      "when not given); a server need not be running");
  admin_->require_subcommand(1);
  admin_->fallthrough();
  add_cohort_ = admin_->add_subcommand("add-cohort", "Add a cohort of learners");
  add_cohort_->add_option("cohort", cohort_, "Cohort name (letters, digits, . _ -)")->required();
  add_user_ = admin_->add_subcommand(
      "add-user", "Add a user and print their token on stdout (shown only this once)");
  add_user_->add_option("name", name_, "User name (letters, digits, . _ -)")->required();
  add_user_->add_option("--role", role_, "learner, instructor or admin")
      ->check(CLI::IsMember({"learner", "instructor", "admin"}))
      ->capture_default_str();
  add_user_->add_option("--cohort", cohort_, "The user's cohort (learners and instructors)");
  add_user_->add_option("--email", email_, "The user's email (optional)");
  revoke_ = admin_->add_subcommand(
      "revoke",
      "Revoke a user's token: a running server sees it within a quarter second and ends "
      "their queued and running runs; the invite codes they made are deleted");
  revoke_->add_option("name", name_, "User name")->required();
  list_users_ = admin_->add_subcommand("list-users", "List the users");
  import_roster_ = admin_->add_subcommand(
      "import-roster",
      "Add the learners of a roster CSV (name[,email] a line) to a cohort, all or none, "
      "and print name,email,token for each as CSV on stdout");
  import_roster_->add_option("--cohort", cohort_, "The learners' cohort")->required();
  import_roster_->add_option("file", roster_path_, "The roster CSV ('-': stdin)")->required();
  list_invites_ = admin_->add_subcommand(
      "list-invites", "List the invite codes that can still be redeemed (by id, not code)");
  list_invites_->add_option("--cohort", cohort_, "Only this cohort's invites");
  revoke_invite_ =
      admin_->add_subcommand("revoke-invite", "Revoke an invite code: it stops working at once");
  revoke_invite_->add_option("id", invite_id_, "The invite's ID (from list-invites)")->required();
  for (CLI::App* command : {add_cohort_, add_user_, revoke_, list_users_, import_roster_,
                            list_invites_, revoke_invite_}) {
    command->fallthrough();
  }
}

int AdminCommandLine::Run(const std::string& store_spec, std::ostream& out,
                          std::ostream& err) const {
  auto fail = [&](const absl::Status& status) {
    err << "kbench-server admin: " << status.message() << std::endl;
    return 1;
  };
  absl::StatusOr<std::unique_ptr<store::IdentityStore>> opened =
      store::OpenIdentityStore(store_spec);
  if (!opened.ok()) return fail(opened.status());
  store::IdentityStore& identities = **opened;

  if (add_cohort_->parsed()) {
    if (absl::Status added = identities.AddCohort(cohort_); !added.ok()) return fail(added);
    err << "cohort " << cohort_ << " added" << std::endl;
    return 0;
  }
  if (add_user_->parsed()) {
    absl::StatusOr<std::vector<std::string>> tokens =
        identities.AddUsers({store::NewUser{name_, RoleOf(role_), cohort_, email_}});
    if (!tokens.ok()) return fail(tokens.status());
    out << tokens->front() << std::endl;
    err << role_ << " " << name_ << " added; the token above is shown only once" << std::endl;
    return 0;
  }
  if (revoke_->parsed()) {
    if (absl::Status revoked = identities.Revoke(name_); !revoked.ok()) return fail(revoked);
    err << name_ << "'s token is revoked" << std::endl;
    return 0;
  }
  if (list_users_->parsed()) {
    absl::StatusOr<std::vector<store::UserRecord>> users = identities.ListUsers();
    if (!users.ok()) return fail(users.status());
    out << absl::StrFormat("%-24s %-10s %-16s %-16s %-16s %s\n", "NAME", "ROLE", "COHORT",
                           "CREATED", "REVOKED", "EMAIL");
    for (const store::UserRecord& user : *users) {
      out << absl::StrFormat(
          "%-24s %-10s %-16s %-16s %-16s %s\n", user.name,
          std::string(identity::RoleName(user.role)), user.cohort.empty() ? "-" : user.cohort,
          TimeText(user.created_unix_ms), TimeText(user.revoked_unix_ms), user.email);
    }
    return 0;
  }
  if (list_invites_->parsed()) {
    absl::StatusOr<std::vector<store::InviteRecord>> invites =
        identities.ListInvites(cohort_, store::NowUnixMs());
    if (!invites.ok()) return fail(invites.status());
    out << absl::StrFormat("%-12s %-16s %-24s %9s %-16s %s\n", "ID", "COHORT", "CREATED BY",
                           "USES LEFT", "EXPIRES", "CREATED");
    for (const store::InviteRecord& invite : *invites) {
      out << absl::StrFormat("%-12s %-16s %-24s %9d %-16s %s\n", invite.id, invite.cohort,
                             invite.created_by, invite.uses_left, TimeText(invite.expires_unix_ms),
                             TimeText(invite.created_unix_ms));
    }
    return 0;
  }
  if (revoke_invite_->parsed()) {
    if (absl::Status revoked = identities.RevokeInvite(invite_id_); !revoked.ok())
      return fail(revoked);
    err << "invite " << invite_id_ << " is revoked" << std::endl;
    return 0;
  }
  // import-roster
  std::ifstream file;
  if (roster_path_ != "-") {
    file.open(roster_path_);
    if (!file) return fail(absl::NotFoundError("cannot read the roster " + roster_path_));
  }
  absl::StatusOr<std::vector<store::NewUser>> learners =
      ParseRoster(roster_path_ == "-" ? std::cin : file, cohort_);
  if (!learners.ok()) return fail(learners.status());
  absl::StatusOr<std::vector<std::string>> tokens = identities.AddUsers(*learners);
  if (!tokens.ok()) return fail(tokens.status());
  out << RosterTokensCsv(*learners, *tokens);
  out.flush();
  err << learners->size() << " learners added to " << cohort_
      << "; their tokens above are shown only once" << std::endl;
  return 0;
}

}  // namespace kbench::server
