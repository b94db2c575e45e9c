#include "client/auth_command_line.h"

namespace kbench::client {

AuthCommandLine::AuthCommandLine(CLI::App& app) {
  login_ = app.add_subcommand(
      "login",
      "Sign in: join a cohort with your instructor's invite code (--invite, "
      "--name), or keep a token an admin gave you (--token). The token is saved "
      "to $XDG_CONFIG_HOME/kbench/credentials (~/.config/kbench/credentials: the "
      "token on one line, mode 0600, in a directory of mode 0700) and sent on every "
      "later call ($KBENCH_TOKEN wins over the file)");
  CLI::Option* invite =
      login_
          ->add_option_function<std::string>(
              "--invite",
              [this](const std::string& code) { login_command_.request.set_invite_code(code); },
              "The invite code")
          ->type_name("CODE");
  CLI::Option* name =
      login_
          ->add_option_function<std::string>(
              "--name", [this](const std::string& name) { login_command_.request.set_name(name); },
              "Your user name: 1 to 64 letters, digits, '.', '_' or '-'")
          ->type_name("NAME");
  CLI::Option* token =
      login_
          ->add_option("--token", login_command_.token,
                       "A token an admin printed (kbench-server admin add-user); '-' reads it "
                       "from stdin, which keeps it out of the shell's history. The server "
                       "checks it before it is saved")
          ->type_name("TOKEN")
          ->excludes(invite)
          ->excludes(name);
  invite->needs(name);
  name->needs(invite);
  login_->callback([invite, token] {
    if (invite->count() == 0 && token->count() == 0)
      throw CLI::RequiredError("--invite CODE --name NAME, or --token TOKEN");
  });

  invite_ = app.add_subcommand(
      "invite",
      "Make an invite code to a cohort (an instructor of the cohort, or an admin); "
      "learners join with `kbench login --invite CODE --name NAME`");
  invite_
      ->add_option_function<std::string>(
          "--cohort",
          [this](const std::string& cohort) { invite_command_.request.set_cohort(cohort); },
          "The cohort to join")
      ->type_name("COHORT")
      ->required();
  invite_
      ->add_option_function<uint32_t>(
          "--uses", [this](uint32_t uses) { invite_command_.request.set_uses(uses); },
          "How many learners may use the code (default 1; the server's limit is 200)")
      ->type_name("N")
      ->check(CLI::PositiveNumber);
  invite_
      ->add_option_function<uint32_t>(
          "--expires-hours",
          [this](uint32_t hours) { invite_command_.request.set_expires_hours(hours); },
          "Hours until the code expires (default 24, at most 720)")
      ->type_name("H")
      ->check(CLI::Range(1, 720));

  whoami_ = app.add_subcommand("whoami", "Show who your token says you are");
}

std::optional<AuthCommand> AuthCommandLine::Parsed() const {
  if (login_->parsed()) return login_command_;
  if (invite_->parsed()) return invite_command_;
  if (whoami_->parsed()) return WhoAmICommand{};
  return std::nullopt;
}

}  // namespace kbench::client
