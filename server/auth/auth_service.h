// The Auth RPCs (kbench/v1/auth.proto): Login redeems an invite code for a
// learner's token, CreateInvite makes one (an instructor for their own
// cohort, or an admin), WhoAmI says who the caller's token is. Store calls
// block, so they run on the service's own StoreThread, never on a gRPC
// thread (authentication included).
//
// Login is limited per client address (failure_limiter.h): past
// kLoginFailureBurst failed logins (an unknown, malformed, expired or used-up
// code) the address is refused with RESOURCE_EXHAUSTED until it has waited.
//
// On a server without authentication (authenticator null) WhoAmI answers
// the anonymous local caller and Login and CreateInvite are
// FAILED_PRECONDITION saying so.
//
// The store and the authenticator must outlive the service, and the
// service the gRPC server that serves it.
#pragma once

#include "kbench/v1/auth.grpc.pb.h"
#include "server/auth/authenticator.h"
#include "server/auth/failure_limiter.h"
#include "server/store/identity_store.h"
#include "server/store/store_thread.h"

namespace kbench::server::auth {

// The wire form of a principal.
v1::Identity ToIdentity(const identity::Principal& principal, bool authentication);

class AuthService final : public v1::Auth::CallbackService {
 public:
  AuthService(store::IdentityStore& identities, const Authenticator* authenticator);

  grpc::ServerUnaryReactor* Login(grpc::CallbackServerContext* context,
                                  const v1::LoginRequest* request,
                                  v1::LoginResponse* response) override;
  grpc::ServerUnaryReactor* CreateInvite(grpc::CallbackServerContext* context,
                                         const v1::CreateInviteRequest* request,
                                         v1::CreateInviteResponse* response) override;
  grpc::ServerUnaryReactor* WhoAmI(grpc::CallbackServerContext* context,
                                   const v1::WhoAmIRequest* request,
                                   v1::Identity* response) override;

 private:
  store::IdentityStore& identities_;
  const Authenticator* const authenticator_;
  FailureLimiter login_failures_;
  store::StoreThread thread_;  // last: destroyed first, finishing queued calls
};

}  // namespace kbench::server::auth
