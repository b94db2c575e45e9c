// Launch-spec expressions: the grid, block and dynamic shared memory of a
// learner's kernel as small integer expressions over the op's sizes
// (kbench.v1.LaunchSpec), e.g. "cdiv(n, 1024)" or "cdiv(N, 64), B*H".
//
// Grammar (whitespace between tokens is ignored):
//   list    := expr [ ',' expr ]...          (ParseLaunchList)
//   expr    := term [ ('+' | '-') term ]...
//   term    := unary [ ('*' | '/' | '%') unary ]...
//   unary   := '-' unary | primary
//   primary := NUMBER | NAME | FUNC '(' expr ',' expr ')' | '(' expr ')'
//   FUNC    := cdiv | min | max   (cdiv(a, b) = ceil(a / b) for b > 0)
// NUMBER is decimal digits; NAME one of the op's sizes. '/' and '%' are
// C's (truncating). Text is at most kMaxLaunchExpressionLength bytes and
// nests at most kMaxLaunchExpressionDepth parentheses, calls and unary
// minuses deep. Every step is checked for int64 overflow and division by
// zero. Errors are INVALID_ARGUMENT naming the 1-based character position,
// e.g. "unknown size 'm' at position 6; the sizes are n".
//
// Data, not code: nothing here runs the learner's code. Immutable once
// parsed; any thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"

namespace kbench::proto::ops {

inline constexpr size_t kMaxLaunchExpressionLength = 256;
inline constexpr int kMaxLaunchExpressionDepth = 16;

class LaunchExpression {
 public:
  // Parses one expression over the sizes `names`.
  static absl::StatusOr<LaunchExpression> Parse(std::string_view text,
                                                const std::vector<std::string>& names);

  // The value with the sizes' `values` (in the order of Parse's names).
  // INVALID_ARGUMENT on overflow or division by zero, naming the position.
  absl::StatusOr<int64_t> Evaluate(const std::vector<int64_t>& values) const;

  // One step of the postfix program; public for the parser in the .cc.
  struct Step {
    enum class Kind { kNumber, kSize, kAdd, kSub, kMul, kDiv, kMod, kNeg, kCdiv, kMin, kMax };
    Kind kind = Kind::kNumber;
    int64_t value = 0;    // kNumber: the number; kSize: the index into values
    size_t position = 0;  // 1-based, for errors
  };

 private:
  friend absl::StatusOr<std::vector<LaunchExpression>> ParseLaunchList(
      std::string_view text, const std::vector<std::string>& names, size_t max_items);
  explicit LaunchExpression(std::vector<Step> steps) : steps_(std::move(steps)) {}
  std::vector<Step> steps_;
};

// Parses a comma-separated list of 1 to `max_items` expressions (a grid or
// block of up to three dimensions). The whole text obeys the length bound;
// errors name positions in the whole text.
absl::StatusOr<std::vector<LaunchExpression>> ParseLaunchList(std::string_view text,
                                                              const std::vector<std::string>& names,
                                                              size_t max_items);

}  // namespace kbench::proto::ops
