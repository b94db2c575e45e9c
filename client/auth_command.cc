#include "client/auth_command.h"

#include <ctime>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "client/credentials.h"
#include "kbench/v1/auth.grpc.pb.h"

namespace kbench::client {
namespace {

std::string RoleText(v1::Role role) {
  switch (role) {
    case v1::ROLE_LEARNER:
      return "learner";
    case v1::ROLE_INSTRUCTOR:
      return "instructor";
    case v1::ROLE_ADMIN:
      return "admin";
    default:
      return "unknown";
  }
}

std::string IdentityText(const v1::Identity& identity) {
  if (!identity.authentication()) {
    return "anonymous local admin (the server runs without authentication)";
  }
  std::string text = identity.user() + " (" + RoleText(identity.role());
  if (!identity.cohort().empty()) text += " of cohort " + identity.cohort();
  return text + ")";
}

// "2026-12-06 14:02 UTC".
std::string UtcText(int64_t unix_ms) {
  const std::time_t seconds = std::time_t(unix_ms / 1000);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%d %H:%M UTC", &utc);
  return text;
}

ExitCode Failure(const grpc::Status& status, CallStage stage, const GlobalOptions& options,
                 const InterruptWatcher& watcher) {
  if (watcher.interrupted()) return ExitCode::kInterrupted;
  std::cerr << DescribeRpcFailure(status, options.server, options.timeout_s, stage) << std::endl;
  // Not connected (a TLS mismatch included): the server was not reached.
  if (stage == CallStage::kConnecting) return ExitCodeForStatus(status.error_code());
  switch (status.error_code()) {
    case grpc::StatusCode::INVALID_ARGUMENT:
    case grpc::StatusCode::ALREADY_EXISTS:
    case grpc::StatusCode::NOT_FOUND:
    case grpc::StatusCode::FAILED_PRECONDITION:
      return ExitCode::kBadArguments;
    default:
      return ExitCodeForStatus(status.error_code());
  }
}

// `kbench login --token`: the token (from stdin for "-") is checked with
// WhoAmI, then saved; a token the server does not know is not.
ExitCode KeepToken(const GlobalOptions& options, const CallOptions& call, InterruptWatcher& watcher,
                   const std::shared_ptr<grpc::Channel>& channel, std::string token) {
  if (token == "-" && !std::getline(std::cin, token)) {
    std::cerr << "kbench: login --token -: no token on stdin" << std::endl;
    return ExitCode::kBadArguments;
  }
  while (!token.empty() && (token.back() == '\r' || token.back() == ' ')) token.pop_back();
  CallOptions with_token = call;
  with_token.token = token;
  grpc::ClientContext context;
  PrepareContext(with_token, context);
  InterruptWatcher::Watch watch(watcher, &context);
  v1::Identity identity;
  const grpc::Status status =
      v1::Auth::NewStub(channel)->WhoAmI(&context, v1::WhoAmIRequest(), &identity);
  if (!status.ok()) return Failure(status, CallStage::kCalling, options, watcher);
  if (!identity.authentication()) {
    std::cerr << "kbench: login --token: the server at " << options.server
              << " has no users (it runs without authentication); nothing to sign in to"
              << std::endl;
    return ExitCode::kBadArguments;
  }
  absl::StatusOr<std::string> path = SaveToken(token);
  if (!path.ok()) {
    std::cerr << "kbench: the token is good, but " << path.status().message()
              << "; set KBENCH_TOKEN to it instead" << std::endl;
    return ExitCode::kServerError;
  }
  std::cerr << "kbench: signed in as " << IdentityText(identity) << "; token saved to " << *path
            << std::endl;
  return ExitCode::kOk;
}

}  // namespace

ExitCode RunAuthCommand(const GlobalOptions& options, const CallOptions& call,
                        InterruptWatcher& watcher, const AuthCommand& command) {
  std::shared_ptr<grpc::Channel> channel;
  if (grpc::Status status = ConnectToServer(call, watcher, channel); !status.ok()) {
    return Failure(status, CallStage::kConnecting, options, watcher);
  }
  if (const auto* login = std::get_if<LoginCommand>(&command); login && !login->token.empty())
    return KeepToken(options, call, watcher, channel, login->token);
  auto stub = v1::Auth::NewStub(channel);
  grpc::ClientContext context;
  PrepareContext(call, context);
  InterruptWatcher::Watch watch(watcher, &context);

  if (const auto* login = std::get_if<LoginCommand>(&command)) {
    v1::LoginResponse response;
    const grpc::Status status = stub->Login(&context, login->request, &response);
    if (!status.ok()) return Failure(status, CallStage::kCalling, options, watcher);
    absl::StatusOr<std::string> path = SaveToken(response.token());
    if (!path.ok()) {
      std::cerr << "kbench: logged in, but " << path.status().message()
                << "; set KBENCH_TOKEN to the token instead:\n"
                << response.token() << std::endl;
      return ExitCode::kServerError;
    }
    std::cerr << "kbench: logged in as " << IdentityText(response.identity()) << "; token saved to "
              << *path << std::endl;
    return ExitCode::kOk;
  }
  if (const auto* invite = std::get_if<InviteCommand>(&command)) {
    v1::CreateInviteResponse response;
    const grpc::Status status = stub->CreateInvite(&context, invite->request, &response);
    if (!status.ok()) return Failure(status, CallStage::kCalling, options, watcher);
    std::cout << response.code() << std::endl;
    std::cerr << "kbench: invite to " << response.cohort() << " for " << response.uses()
              << " login(s), valid until " << UtcText(response.expires_unix_ms())
              << "; learners run: kbench login --invite " << response.code() << " --name NAME"
              << std::endl;
    return ExitCode::kOk;
  }
  v1::Identity identity;
  const grpc::Status status = stub->WhoAmI(&context, v1::WhoAmIRequest(), &identity);
  if (!status.ok()) return Failure(status, CallStage::kCalling, options, watcher);
  if (options.format == OutputFormat::kJson) {
    nlohmann::json json = {{"user", identity.user()},
                           {"cohort", identity.cohort()},
                           {"role", RoleText(identity.role())},
                           {"authentication", identity.authentication()}};
    std::cout << json.dump() << std::endl;
  } else {
    std::cout << IdentityText(identity) << std::endl;
  }
  return ExitCode::kOk;
}

}  // namespace kbench::client
