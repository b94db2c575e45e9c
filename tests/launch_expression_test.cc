// Launch-spec expressions (proto/ops/launch_expression.h): the grammar,
// evaluation, and every bound with an error that names the position.
#include "proto/ops/launch_expression.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace kbench::proto::ops {
namespace {

using ::testing::HasSubstr;

const std::vector<std::string> kAttention = {"B", "H", "N", "d"};

int64_t Value(const std::string& text, const std::vector<int64_t>& values = {2, 8, 1000, 64}) {
  absl::StatusOr<LaunchExpression> e = LaunchExpression::Parse(text, kAttention);
  EXPECT_TRUE(e.ok()) << e.status();
  absl::StatusOr<int64_t> v = e->Evaluate(values);
  EXPECT_TRUE(v.ok()) << v.status();
  return *v;
}

std::string ParseError(const std::string& text,
                       const std::vector<std::string>& names = kAttention) {
  absl::StatusOr<LaunchExpression> e = LaunchExpression::Parse(text, names);
  EXPECT_FALSE(e.ok()) << text;
  EXPECT_EQ(e.status().code(), absl::StatusCode::kInvalidArgument);
  return std::string(e.status().message());
}

std::string EvaluationError(const std::string& text, const std::vector<int64_t>& values) {
  absl::StatusOr<LaunchExpression> e = LaunchExpression::Parse(text, kAttention);
  EXPECT_TRUE(e.ok()) << e.status();
  absl::StatusOr<int64_t> v = e->Evaluate(values);
  EXPECT_FALSE(v.ok()) << text;
  return std::string(v.status().message());
}

TEST(LaunchExpression, NumbersSizesAndPrecedence) {
  EXPECT_EQ(Value("256"), 256);
  EXPECT_EQ(Value("B*H"), 16);
  EXPECT_EQ(Value("1 + 2 * 3"), 7);
  EXPECT_EQ(Value("(1 + 2) * 3"), 9);
  EXPECT_EQ(Value("N / 64 % 5"), 0);  // (1000 / 64) % 5 = 15 % 5
  EXPECT_EQ(Value("10 - 3 - 2"), 5);  // left to right
  EXPECT_EQ(Value("-N + 1"), -999);
  EXPECT_EQ(Value("- - 4"), 4);
}

TEST(LaunchExpression, CdivMinMaxAreFunctionsOfTwo) {
  EXPECT_EQ(Value("cdiv(N, 64)"), 16);
  EXPECT_EQ(Value("cdiv(1024, 64)"), 16);
  EXPECT_EQ(Value("cdiv(0, 64)"), 0);
  EXPECT_EQ(Value("min(N, 512)"), 512);
  EXPECT_EQ(Value("max(d, 128)"), 128);
  EXPECT_EQ(Value("min(cdiv(N,256), max(B, H))"), 4);
}

TEST(LaunchExpression, AListHasUpToItsBoundOfItems) {
  absl::StatusOr<std::vector<LaunchExpression>> grid =
      ParseLaunchList("cdiv(N, 64), B*H", kAttention, 3);
  ASSERT_TRUE(grid.ok()) << grid.status();
  ASSERT_EQ(grid->size(), 2u);
  EXPECT_EQ(*(*grid)[0].Evaluate({2, 8, 1000, 64}), 16);
  EXPECT_EQ(*(*grid)[1].Evaluate({2, 8, 1000, 64}), 16);
  absl::StatusOr<std::vector<LaunchExpression>> four = ParseLaunchList("1,2,3,4", kAttention, 3);
  ASSERT_FALSE(four.ok());
  EXPECT_THAT(four.status().message(), HasSubstr("at most 3"));
  EXPECT_THAT(four.status().message(), HasSubstr("position 6"));
}

TEST(LaunchExpression, ErrorsNameThePosition) {
  EXPECT_THAT(ParseError("cdiv(n, 256)", {"N"}), HasSubstr("unknown size 'n' at position 6"));
  EXPECT_THAT(ParseError("cdiv(n, 256)", {"N"}), HasSubstr("the sizes are N"));
  EXPECT_THAT(ParseError("1 + * 2"), HasSubstr("unexpected '*' at position 5"));
  EXPECT_THAT(ParseError("(1 + 2"), HasSubstr("ends early at position 7"));
  EXPECT_THAT(ParseError("1 2"), HasSubstr("unexpected '2' at position 3"));
  EXPECT_THAT(ParseError("cdiv(1)"), HasSubstr("expected ','"));
  EXPECT_THAT(ParseError("pow(2, 3)"), HasSubstr("unknown size 'pow'"));
  EXPECT_THAT(ParseError(""), HasSubstr("ends early at position 1"));
  EXPECT_THAT(ParseError("1; rm -rf /"), HasSubstr("unexpected ';' at position 2"));
}

TEST(LaunchExpression, LengthAndDepthAreBounded) {
  EXPECT_THAT(ParseError(std::string(257, '1')), HasSubstr("at most 256 characters"));
  std::string deep = std::string(17, '(') + "1" + std::string(17, ')');
  EXPECT_THAT(ParseError(deep), HasSubstr("nested more than 16 deep"));
  std::string ok = std::string(16, '(') + "1" + std::string(16, ')');
  EXPECT_EQ(Value(ok), 1);
  EXPECT_THAT(ParseError(std::string(100, '-') + "1"), HasSubstr("nested more than 16"));
}

TEST(LaunchExpression, OverflowAndDivisionByZeroAreErrorsNotValues) {
  EXPECT_THAT(ParseError("99999999999999999999"), HasSubstr("does not fit in 64 bits"));
  EXPECT_THAT(EvaluationError("N * N * N * N * N * N * N", {1, 1, 1000000, 1}),
              HasSubstr("overflows 64 bits at position"));
  EXPECT_THAT(EvaluationError("9223372036854775807 + N", {1, 1, 1, 1}),
              HasSubstr("overflows 64 bits at position 21"));
  EXPECT_THAT(EvaluationError("N / (d - 64)", {1, 1, 1, 64}),
              HasSubstr("division by zero at position 3"));
  EXPECT_THAT(EvaluationError("N % 0", {1, 1, 1, 64}), HasSubstr("division by zero"));
  EXPECT_THAT(EvaluationError("cdiv(N, d - 64)", {1, 1, 1, 64}),
              HasSubstr("needs a divisor above 0, got 0"));
}

}  // namespace
}  // namespace kbench::proto::ops
