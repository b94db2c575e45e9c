// Unit tests of proto/text/utf8.h (which byte sequences are well-formed
// UTF-8, RFC 3629) and server/run/utf8.h (how a field that is not is refused).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string_view>

#include "proto/text/utf8.h"
#include "server/run/utf8.h"

namespace kbench::server {
namespace {

using ::kbench::proto::text::FirstInvalidUtf8;
using ::testing::HasSubstr;

constexpr size_t kAllWellFormed = std::string_view::npos;

TEST(FirstInvalidUtf8, AcceptsAsciiAndEveryLengthOfSequence) {
  EXPECT_EQ(FirstInvalidUtf8(""), kAllWellFormed);
  EXPECT_EQ(FirstInvalidUtf8("plain ascii ~"), kAllWellFormed);
  EXPECT_EQ(FirstInvalidUtf8("caf\xc3\xa9"), kAllWellFormed);       // U+00E9
  EXPECT_EQ(FirstInvalidUtf8("\xe2\x82\xac 5"), kAllWellFormed);    // U+20AC
  EXPECT_EQ(FirstInvalidUtf8("\xf0\x9f\x98\x80"), kAllWellFormed);  // U+1F600
  EXPECT_EQ(FirstInvalidUtf8("\xf4\x8f\xbf\xbf"), kAllWellFormed);  // U+10FFFF
  EXPECT_EQ(FirstInvalidUtf8("\xed\x9f\xbf"), kAllWellFormed);      // U+D7FF
}

TEST(FirstInvalidUtf8, RefusesOverlongForms) {
  EXPECT_EQ(FirstInvalidUtf8("a\xc0\x80"), 1u);
  EXPECT_EQ(FirstInvalidUtf8("a\xc1\xbf"), 1u);
  EXPECT_EQ(FirstInvalidUtf8("ab\xe0\x80\x80"), 2u);
  EXPECT_EQ(FirstInvalidUtf8("\xf0\x8f\xbf\xbf"), 0u);
}

TEST(FirstInvalidUtf8, RefusesSurrogatesAndCodePointsAboveU10FFFF) {
  EXPECT_EQ(FirstInvalidUtf8("x\xed\xa0\x80"), 1u);     // U+D800
  EXPECT_EQ(FirstInvalidUtf8("\xf4\x90\x80\x80"), 0u);  // U+110000
  EXPECT_EQ(FirstInvalidUtf8("ok\xf5\x80\x80\x80"), 2u);
  EXPECT_EQ(FirstInvalidUtf8("\xff"), 0u);
}

TEST(FirstInvalidUtf8, RefusesStrayContinuationsAndTruncatedSequences) {
  EXPECT_EQ(FirstInvalidUtf8("ab\x80"), 2u);
  EXPECT_EQ(FirstInvalidUtf8("ab\xe2\x82"), 2u);
  EXPECT_EQ(FirstInvalidUtf8("\xc3(x"), 0u);
  EXPECT_EQ(FirstInvalidUtf8(std::string_view("a\0\xc3", 3)), 2u);
}

TEST(CheckUtf8, NamesTheFieldTheOffsetAndTheByte) {
  EXPECT_TRUE(CheckUtf8("label", "caf\xc3\xa9").ok());
  const absl::Status refused = CheckUtf8("variants[1]", "na\xefve");
  EXPECT_EQ(refused.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(refused.message(), HasSubstr("variants[1] must be valid UTF-8 text"));
  EXPECT_THAT(refused.message(), HasSubstr("byte 2 (0xef)"));
}

}  // namespace
}  // namespace kbench::server
