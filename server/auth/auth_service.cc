#include "server/auth/auth_service.h"

#include <chrono>

#include "absl/strings/str_cat.h"
#include "server/common/echo.h"
#include "server/common/status_mapping.h"
#include "server/identity/secret.h"
#include "server/store/unix_time.h"

namespace kbench::server::auth {
namespace {

constexpr uint32_t kDefaultInviteHours = 24;

grpc::Status NoAuthentication() {
  return grpc::Status(grpc::StatusCode::FAILED_PRECONDITION,
                      "this server runs without authentication (no users): no login or "
                      "invite is needed");
}

}  // namespace

v1::Identity ToIdentity(const identity::Principal& principal, bool authentication) {
  v1::Identity identity;
  identity.set_user(principal.user);
  identity.set_cohort(principal.cohort);
  identity.set_role(static_cast<v1::Role>(static_cast<int>(principal.role)));
  identity.set_authentication(authentication);
  return identity;
}

AuthService::AuthService(store::IdentityStore& identities, const Authenticator* authenticator)
    : identities_(identities),
      authenticator_(authenticator),
      login_failures_("failed logins", kLoginFailureBurst, kLoginFailureRefill) {}

grpc::ServerUnaryReactor* AuthService::Login(grpc::CallbackServerContext* context,
                                             const v1::LoginRequest* request,
                                             v1::LoginResponse* response) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  if (authenticator_ == nullptr) {
    reactor->Finish(NoAuthentication());
    return reactor;
  }
  if (request->invite_code().empty()) {
    reactor->Finish(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "invite_code: empty"));
    return reactor;
  }
  const std::string address = FailureLimiter::AddressOf(context->peer());
  if (absl::Status allowed = login_failures_.Check(address, FailureLimiter::Clock::now());
      !allowed.ok()) {
    reactor->Finish(ToGrpcStatus(allowed));
    return reactor;
  }
  if (!identity::LooksLikeSecret(request->invite_code(), identity::kInvitePrefix)) {
    login_failures_.Failed(address, FailureLimiter::Clock::now());
    reactor->Finish(grpc::Status(grpc::StatusCode::PERMISSION_DENIED,
                                 "invite: not an invite code of this server (ask your "
                                 "instructor for one)"));
    return reactor;
  }
  thread_.Post([this, reactor, request, response, address] {
    absl::StatusOr<std::string> token =
        identities_.RedeemInvite(request->invite_code(), request->name(), store::NowUnixMs());
    if (!token.ok()) {
      if (absl::IsPermissionDenied(token.status()))
        login_failures_.Failed(address, FailureLimiter::Clock::now());
      reactor->Finish(ToGrpcStatus(token.status()));
      return;
    }
    absl::StatusOr<identity::Principal> who = identities_.FindByToken(*token);
    if (!who.ok()) {
      reactor->Finish(ToGrpcStatus(who.status()));
      return;
    }
    response->set_token(*token);
    *response->mutable_identity() = ToIdentity(*who, true);
    reactor->Finish(grpc::Status::OK);
  });
  return reactor;
}

grpc::ServerUnaryReactor* AuthService::CreateInvite(grpc::CallbackServerContext* context,
                                                    const v1::CreateInviteRequest* request,
                                                    v1::CreateInviteResponse* response) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  if (authenticator_ == nullptr) {
    reactor->Finish(NoAuthentication());
    return reactor;
  }
  const uint32_t uses = request->uses() == 0 ? 1 : request->uses();
  const uint32_t hours =
      request->expires_hours() == 0 ? kDefaultInviteHours : request->expires_hours();
  if (uses > store::kMaxInviteUses) {
    reactor->Finish(grpc::Status(
        grpc::StatusCode::INVALID_ARGUMENT,
        absl::StrCat("uses: ", uses, " is over the limit of ", store::kMaxInviteUses)));
    return reactor;
  }
  if (hours > store::kMaxInviteHours) {
    reactor->Finish(grpc::Status(
        grpc::StatusCode::INVALID_ARGUMENT,
        absl::StrCat("expires_hours: ", hours, " is over the limit of ", store::kMaxInviteHours)));
    return reactor;
  }
  thread_.Post([this, context, reactor, request, response, uses, hours] {
    absl::StatusOr<identity::Principal> who = authenticator_->Authenticate(*context);
    if (!who.ok()) {
      reactor->Finish(ToGrpcStatus(who.status()));
      return;
    }
    if (!who->AtLeast(identity::Role::kInstructor) ||
        (who->role == identity::Role::kInstructor && who->cohort != request->cohort())) {
      reactor->Finish(grpc::Status(
          grpc::StatusCode::PERMISSION_DENIED,
          absl::StrCat("cohort: ", std::string(identity::RoleWithArticle(who->role)),
                       " may not invite to ", Echo(request->cohort()),
                       " (an instructor invites to their own cohort, an admin to any)")));
      return;
    }
    const int64_t expires = store::NowUnixMs() + int64_t{hours} * 3600 * 1000;
    absl::StatusOr<std::string> code =
        identities_.CreateInvite(request->cohort(), uses, expires, who->user);
    if (!code.ok()) {
      reactor->Finish(ToGrpcStatus(code.status()));
      return;
    }
    response->set_code(*code);
    response->set_cohort(request->cohort());
    response->set_uses(uses);
    response->set_expires_unix_ms(expires);
    reactor->Finish(grpc::Status::OK);
  });
  return reactor;
}

grpc::ServerUnaryReactor* AuthService::WhoAmI(grpc::CallbackServerContext* context,
                                              const v1::WhoAmIRequest*, v1::Identity* response) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  if (authenticator_ == nullptr) {
    *response = ToIdentity(identity::LocalPrincipal(), false);
    reactor->Finish(grpc::Status::OK);
    return reactor;
  }
  thread_.Post([this, context, reactor, response] {
    absl::StatusOr<identity::Principal> who = authenticator_->Authenticate(*context);
    if (who.ok()) *response = ToIdentity(*who, true);
    reactor->Finish(ToGrpcStatus(who.status()));
  });
  return reactor;
}

}  // namespace kbench::server::auth
