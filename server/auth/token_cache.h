// The verified tokens of a TokenAuthenticator, so that a call of a known
// user costs no store query (and waits on no store lock). Bounded: at most
// kTokenCacheEntries tokens, each for kTokenCacheTtl after the store
// vouched for it; Forget drops a revoked user's at once. Keys are the
// tokens' SHA-256, so the cache holds no usable token. Thread-safe.
#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "server/identity/principal.h"

namespace kbench::server::auth {

inline constexpr size_t kTokenCacheEntries = 4096;
// How long a token stays trusted without asking the store again: the most
// a revocation the server was not told of (revocation_watch.h) goes unseen.
inline constexpr std::chrono::seconds kTokenCacheTtl{10};

class TokenCache {
 public:
  using Clock = std::chrono::steady_clock;

  // The principal of the token whose hash is `token_hash`, if cached and
  // fresh at `now`.
  std::optional<identity::Principal> Find(const std::string& token_hash, Clock::time_point now);

  // A count of Forget calls: read it before asking the store, and pass it
  // to Put.
  uint64_t generation() const;

  // Caches what the store said of `token_hash` at `now`, unless a Forget
  // came since `generation` was read: that closes the race where a
  // revocation lands between the store's answer and this Put, which would
  // otherwise trust a revoked token for a whole TTL.
  void Put(const std::string& token_hash, const identity::Principal& principal,
           Clock::time_point now, uint64_t generation);

  // Drops every token of `user`.
  void Forget(const std::string& user);

 private:
  struct Entry {
    identity::Principal principal;
    Clock::time_point expires;
  };

  mutable std::mutex mu_;
  std::unordered_map<std::string, Entry> entries_;
  uint64_t generation_ = 0;
};

}  // namespace kbench::server::auth
