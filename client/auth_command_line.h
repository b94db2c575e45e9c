// `kbench login`, `kbench invite` and `kbench whoami`: their flags and
// help, parsed into the Auth call to make (kbench/v1/auth.proto).
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <variant>

#include "kbench/v1/auth.pb.h"

namespace kbench::client {

// `kbench login --invite CODE --name NAME`: saves the token it gets.
// `kbench login --token TOKEN` (a token an admin printed; "-" reads it
// from stdin): checks it with the server, then saves it.
struct LoginCommand {
  v1::LoginRequest request;
  std::string token;  // empty: log in with the invite
};

// `kbench invite --cohort C [--uses N] [--expires-hours H]`.
struct InviteCommand {
  v1::CreateInviteRequest request;
};

// `kbench whoami`.
struct WhoAmICommand {};

using AuthCommand = std::variant<LoginCommand, InviteCommand, WhoAmICommand>;

// Adds login, invite and whoami to the app it is made with; Parsed() reads
// the one parsed. Lives as long as the parse (the flags write into it).
class AuthCommandLine {
 public:
  explicit AuthCommandLine(CLI::App& app);

  std::optional<AuthCommand> Parsed() const;

 private:
  CLI::App* login_ = nullptr;
  CLI::App* invite_ = nullptr;
  CLI::App* whoami_ = nullptr;
  LoginCommand login_command_;
  InviteCommand invite_command_;
};

}  // namespace kbench::client
