// Problems in the order a person reads them (server/http/natural_order.h).
#include "server/http/natural_order.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace kbench::server::http {
namespace {

TEST(NaturalLess, OrdersRunsOfDigitsByValue) {
  std::vector<std::string> problems = {"n=1000", "n=10000", "n=2000", "n=100", "n=1000000"};
  std::sort(problems.begin(), problems.end(), NaturalLess);
  EXPECT_EQ(problems,
            (std::vector<std::string>{"n=100", "n=1000", "n=2000", "n=10000", "n=1000000"}));
}

TEST(NaturalLess, ComparesEveryNumberOfAShapeInTurn) {
  std::vector<std::string> problems = {
      "batch=1 heads=8 seq_len=1024", "batch=1 heads=8 seq_len=256", "batch=1 heads=16 seq_len=128",
      "batch=2 heads=1 seq_len=64"};
  std::sort(problems.begin(), problems.end(), NaturalLess);
  EXPECT_EQ(problems, (std::vector<std::string>{
                          "batch=1 heads=8 seq_len=256", "batch=1 heads=8 seq_len=1024",
                          "batch=1 heads=16 seq_len=128", "batch=2 heads=1 seq_len=64"}));
}

TEST(NaturalLess, IsAStrictOrder) {
  EXPECT_FALSE(NaturalLess("n=7", "n=7"));
  EXPECT_TRUE(NaturalLess("n=7", "n=07"));  // equal values: the shorter run first
  EXPECT_FALSE(NaturalLess("n=07", "n=7"));
  EXPECT_TRUE(NaturalLess("n=7", "n=7 causal"));  // a prefix first
  EXPECT_TRUE(NaturalLess("a", "b"));
  EXPECT_FALSE(NaturalLess("b", "a"));
}

}  // namespace
}  // namespace kbench::server::http
