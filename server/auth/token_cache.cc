#include "server/auth/token_cache.h"

namespace kbench::server::auth {

std::optional<identity::Principal> TokenCache::Find(const std::string& token_hash,
                                                    Clock::time_point now) {
  std::lock_guard lock(mu_);
  const auto found = entries_.find(token_hash);
  if (found == entries_.end()) return std::nullopt;
  if (found->second.expires <= now) {
    entries_.erase(found);
    return std::nullopt;
  }
  return found->second.principal;
}

uint64_t TokenCache::generation() const {
  std::lock_guard lock(mu_);
  return generation_;
}

void TokenCache::Put(const std::string& token_hash, const identity::Principal& principal,
                     Clock::time_point now, uint64_t generation) {
  std::lock_guard lock(mu_);
  if (generation != generation_) return;
  if (entries_.size() >= kTokenCacheEntries) {
    std::erase_if(entries_, [&](const auto& entry) { return entry.second.expires <= now; });
    // Still full of fresh tokens: one goes, whichever; it is only asked
    // for again.
    if (entries_.size() >= kTokenCacheEntries) entries_.erase(entries_.begin());
  }
  entries_[token_hash] = {principal, now + kTokenCacheTtl};
}

void TokenCache::Forget(const std::string& user) {
  std::lock_guard lock(mu_);
  ++generation_;
  std::erase_if(entries_, [&](const auto& entry) { return entry.second.principal.user == user; });
}

}  // namespace kbench::server::auth
