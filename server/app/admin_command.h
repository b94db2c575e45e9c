// `kbench-server admin`: manages the server's identities directly in the
// store that --store names (the server's own default when not given), with
// or without a server running on it:
//   add-cohort COHORT
//   add-user NAME --role learner|instructor|admin [--cohort C] [--email E]
//       prints the user's token on stdout, once (only its hash is kept)
//   revoke NAME          the user's token stops working (a running server
//                        sees it within kRevocationPoll and ends their
//                        runs) and their invite codes are deleted
//   list-users           name, role, cohort, email, created, revoked (a table)
//   list-invites [--cohort C]
//                        the invites that can still be redeemed: id, cohort,
//                        creator, uses left, expiry (a table)
//   revoke-invite ID     the invite's code stops working
//   import-roster --cohort C FILE
//       adds FILE's learners (roster.h), all or none, and prints each one's
//       token as CSV on stdout: name,email,token
// Exit codes: 0 done; 1 the store refused or failed (the message says why).
#pragma once

#include <ostream>
#include <string>

#include "CLI/CLI.hpp"

namespace kbench::server {

class AdminCommandLine {
 public:
  // Adds `admin` and its subcommands to `app`; lives as long as the parse.
  explicit AdminCommandLine(CLI::App& app);

  bool parsed() const { return admin_->parsed(); }

  // Runs the parsed admin subcommand on the store `store_spec`; tokens and
  // tables to `out`, messages to `err`. Returns the exit code.
  int Run(const std::string& store_spec, std::ostream& out, std::ostream& err) const;

 private:
  CLI::App* admin_ = nullptr;
  CLI::App* add_cohort_ = nullptr;
  CLI::App* add_user_ = nullptr;
  CLI::App* revoke_ = nullptr;
  CLI::App* list_users_ = nullptr;
  CLI::App* import_roster_ = nullptr;
  CLI::App* list_invites_ = nullptr;
  CLI::App* revoke_invite_ = nullptr;
  std::string name_;
  std::string role_ = "learner";
  std::string cohort_;
  std::string email_;
  std::string roster_path_;
  std::string invite_id_;
};

}  // namespace kbench::server
