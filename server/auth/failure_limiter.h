// How many failed attempts (an unknown token, a bad invite code) one
// client address may make: a burst of `burst`, then one more each
// `refill`. Past that its attempts are refused with RESOURCE_EXHAUSTED,
// without asking the store, so a flood of made-up secrets costs the store
// (and every other caller waiting on it) a trickle of queries. Successes
// cost nothing. At most kMaxTrackedAddresses addresses are tracked; past
// that the ones that have paid off their failures are forgotten, then any.
// Thread-safe.
#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>

#include "absl/status/status.h"

namespace kbench::server::auth {

inline constexpr size_t kMaxTrackedAddresses = 10000;
// Unknown or revoked tokens (TokenAuthenticator): 30 at once, then one a
// second.
inline constexpr uint32_t kTokenFailureBurst = 30;
inline constexpr std::chrono::seconds kTokenFailureRefill{1};
// Failed logins (AuthService.Login): 10 at once, then one each 6 seconds.
inline constexpr uint32_t kLoginFailureBurst = 10;
inline constexpr std::chrono::seconds kLoginFailureRefill{6};

class FailureLimiter {
 public:
  using Clock = std::chrono::steady_clock;

  // `what` names the attempts in the refusal ("failed logins").
  FailureLimiter(std::string what, uint32_t burst, Clock::duration refill);

  // OK while `address` may fail again; else RESOURCE_EXHAUSTED saying when
  // it may retry.
  absl::Status Check(const std::string& address, Clock::time_point now);
  // Counts one failure of `address`.
  void Failed(const std::string& address, Clock::time_point now);

  // The address of a gRPC peer ("ipv4:10.0.0.7:51234"), without its port:
  // what the limits count against.
  static std::string AddressOf(const std::string& peer);

 private:
  struct Debt {
    double failures = 0;  // decays by one each refill_
    Clock::time_point at;
  };
  // `debt` brought forward to `now`.
  double Owed(const Debt& debt, Clock::time_point now) const;

  const std::string what_;
  const uint32_t burst_;
  const Clock::duration refill_;
  std::mutex mu_;
  std::unordered_map<std::string, Debt> debts_;
};

}  // namespace kbench::server::auth
