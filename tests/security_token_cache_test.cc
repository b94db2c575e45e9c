// The token cache and the failure limits on their own, with time passed
// in: what a flood of made-up secrets costs, how long a trusted token
// stays trusted, and the race between a store answer and a revocation.
#include <chrono>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "server/auth/failure_limiter.h"
#include "server/auth/token_cache.h"

namespace kbench::server::auth {
namespace {

using namespace std::chrono_literals;
using ::testing::HasSubstr;

const identity::Principal kAda{"ada", "fall24", identity::Role::kLearner};

TEST(TokenCache, TrustsATokenForItsTtlOnly) {
  TokenCache cache;
  const auto now = TokenCache::Clock::now();
  cache.Put("hash", kAda, now, cache.generation());
  ASSERT_TRUE(cache.Find("hash", now + kTokenCacheTtl - 1ms).has_value());
  EXPECT_EQ(cache.Find("hash", now)->user, "ada");
  EXPECT_FALSE(cache.Find("hash", now + kTokenCacheTtl).has_value());
  EXPECT_FALSE(cache.Find("other", now).has_value());
}

TEST(TokenCache, ForgetDropsEveryTokenOfTheUserAtOnce) {
  TokenCache cache;
  const auto now = TokenCache::Clock::now();
  cache.Put("one", kAda, now, cache.generation());
  cache.Put("two", kAda, now, cache.generation());
  cache.Put("bob", identity::Principal{"bob", "fall24", identity::Role::kLearner}, now,
            cache.generation());
  cache.Forget("ada");
  EXPECT_FALSE(cache.Find("one", now).has_value());
  EXPECT_FALSE(cache.Find("two", now).has_value());
  EXPECT_TRUE(cache.Find("bob", now).has_value());
}

TEST(TokenCache, AnAnswerOlderThanARevocationIsNotCached) {
  TokenCache cache;
  const auto now = TokenCache::Clock::now();
  const uint64_t asked = cache.generation();  // the store is asked here...
  cache.Forget("ada");                        // ...ada is revoked meanwhile...
  cache.Put("hash", kAda, now, asked);        // ...and its old answer comes back
  EXPECT_FALSE(cache.Find("hash", now).has_value());
}

TEST(TokenCache, HoldsAtMostItsBound) {
  TokenCache cache;
  const auto now = TokenCache::Clock::now();
  for (size_t i = 0; i < kTokenCacheEntries + 10; ++i)
    cache.Put("hash" + std::to_string(i), kAda, now, cache.generation());
  size_t found = 0;
  for (size_t i = 0; i < kTokenCacheEntries + 10; ++i)
    found += cache.Find("hash" + std::to_string(i), now).has_value();
  EXPECT_EQ(found, kTokenCacheEntries);
}

TEST(FailureLimiter, AllowsABurstThenOneEachRefill) {
  FailureLimiter limiter("failed logins", 3, 10s);
  const auto start = FailureLimiter::Clock::now();
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(limiter.Check("ipv4:10.0.0.7", start).ok()) << i;
    limiter.Failed("ipv4:10.0.0.7", start);
  }
  const absl::Status refused = limiter.Check("ipv4:10.0.0.7", start);
  EXPECT_TRUE(absl::IsResourceExhausted(refused));
  EXPECT_THAT(refused.message(), HasSubstr("too many failed logins from ipv4:10.0.0.7"));
  EXPECT_THAT(refused.message(), HasSubstr("retry in 10 s"));
  // Another address is not held back; the first may fail once more a
  // refill later.
  EXPECT_TRUE(limiter.Check("ipv4:10.0.0.8", start).ok());
  EXPECT_TRUE(limiter.Check("ipv4:10.0.0.7", start + 10s).ok());
  limiter.Failed("ipv4:10.0.0.7", start + 10s);
  EXPECT_FALSE(limiter.Check("ipv4:10.0.0.7", start + 10s).ok());
}

TEST(FailureLimiter, CountsAnAddressWithoutItsPort) {
  EXPECT_EQ(FailureLimiter::AddressOf("ipv4:10.0.0.7:51234"), "ipv4:10.0.0.7");
  EXPECT_EQ(FailureLimiter::AddressOf("ipv6:[::1]:51234"), "ipv6:[::1]");
  EXPECT_EQ(FailureLimiter::AddressOf("ipv6:[::1]"), "ipv6:[::1]");
}

}  // namespace
}  // namespace kbench::server::auth
