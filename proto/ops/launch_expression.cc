#include "proto/ops/launch_expression.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace kbench::proto::ops {
namespace {

using Step = LaunchExpression::Step;
using Kind = LaunchExpression::Step::Kind;

// Recursive descent over the whole text; each expression is emitted as a
// postfix program. Depth is bounded so a hostile text cannot exhaust the
// stack.
class Parser {
 public:
  Parser(std::string_view text, const std::vector<std::string>& names)
      : text_(text), names_(names) {}

  absl::StatusOr<std::vector<Step>> Expression() {
    std::vector<Step> steps;
    if (absl::Status s = Sum(steps); !s.ok()) return s;
    return steps;
  }

  // Skips blanks; the next character, or 0 at the end.
  char Peek() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
    return pos_ < text_.size() ? text_[pos_] : '\0';
  }
  size_t position() const { return pos_ + 1; }
  void Advance() { ++pos_; }

  absl::Status Unexpected() {
    const char c = Peek();
    if (c == '\0')
      return absl::InvalidArgumentError(
          absl::StrCat("the expression ends early at position ", position()));
    return absl::InvalidArgumentError(
        absl::StrCat("unexpected '", std::string(1, c), "' at position ", position()));
  }

 private:
  absl::Status Sum(std::vector<Step>& out) {
    if (absl::Status s = Product(out); !s.ok()) return s;
    for (char c = Peek(); c == '+' || c == '-'; c = Peek()) {
      const size_t at = position();
      Advance();
      if (absl::Status s = Product(out); !s.ok()) return s;
      out.push_back({c == '+' ? Kind::kAdd : Kind::kSub, 0, at});
    }
    return absl::OkStatus();
  }

  absl::Status Product(std::vector<Step>& out) {
    if (absl::Status s = Unary(out); !s.ok()) return s;
    for (char c = Peek(); c == '*' || c == '/' || c == '%'; c = Peek()) {
      const size_t at = position();
      Advance();
      if (absl::Status s = Unary(out); !s.ok()) return s;
      out.push_back({c == '*' ? Kind::kMul : c == '/' ? Kind::kDiv : Kind::kMod, 0, at});
    }
    return absl::OkStatus();
  }

  absl::Status Unary(std::vector<Step>& out) {
    if (Peek() != '-') return Primary(out);
    const size_t at = position();
    Advance();
    if (absl::Status s = Enter(at); !s.ok()) return s;
    if (absl::Status s = Unary(out); !s.ok()) return s;
    --depth_;
    out.push_back({Kind::kNeg, 0, at});
    return absl::OkStatus();
  }

  absl::Status Enter(size_t at) {
    if (++depth_ > kMaxLaunchExpressionDepth)
      return absl::InvalidArgumentError(
          absl::StrCat("nested more than ", kMaxLaunchExpressionDepth, " deep at position ", at));
    return absl::OkStatus();
  }

  absl::Status Expect(char wanted) {
    if (Peek() != wanted) {
      absl::Status s = Unexpected();
      return absl::InvalidArgumentError(
          absl::StrCat(s.message(), "; expected '", std::string(1, wanted), "'"));
    }
    Advance();
    return absl::OkStatus();
  }

  absl::Status Primary(std::vector<Step>& out) {
    const char c = Peek();
    const size_t at = position();
    if (std::isdigit(static_cast<unsigned char>(c))) {
      int64_t value = 0;
      while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
        if (__builtin_mul_overflow(value, 10, &value) ||
            __builtin_add_overflow(value, text_[pos_] - '0', &value))
          return absl::InvalidArgumentError(
              absl::StrCat("the number at position ", at, " does not fit in 64 bits"));
        ++pos_;
      }
      out.push_back({Kind::kNumber, value, at});
      return absl::OkStatus();
    }
    if (c == '(') {
      Advance();
      if (absl::Status s = Enter(at); !s.ok()) return s;
      if (absl::Status s = Sum(out); !s.ok()) return s;
      --depth_;
      return Expect(')');
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      size_t end = pos_;
      while (end < text_.size() &&
             (std::isalnum(static_cast<unsigned char>(text_[end])) || text_[end] == '_'))
        ++end;
      const std::string word(text_.substr(pos_, end - pos_));
      pos_ = end;
      if (word == "cdiv" || word == "min" || word == "max") return Call(word, at, out);
      for (size_t i = 0; i < names_.size(); ++i)
        if (names_[i] == word) {
          out.push_back({Kind::kSize, int64_t(i), at});
          return absl::OkStatus();
        }
      return absl::InvalidArgumentError(absl::StrCat("unknown size '", word, "' at position ", at,
                                                     "; the sizes are ", absl::StrJoin(names_, " "),
                                                     " (functions: cdiv, min, max)"));
    }
    return Unexpected();
  }

  absl::Status Call(const std::string& function, size_t at, std::vector<Step>& out) {
    if (absl::Status s = Expect('('); !s.ok()) return s;
    if (absl::Status s = Enter(at); !s.ok()) return s;
    if (absl::Status s = Sum(out); !s.ok()) return s;
    if (absl::Status s = Expect(','); !s.ok()) return s;
    if (absl::Status s = Sum(out); !s.ok()) return s;
    if (absl::Status s = Expect(')'); !s.ok()) return s;
    --depth_;
    out.push_back({function == "cdiv"  ? Kind::kCdiv
                   : function == "min" ? Kind::kMin
                                       : Kind::kMax,
                   0, at});
    return absl::OkStatus();
  }

  std::string_view text_;
  const std::vector<std::string>& names_;
  size_t pos_ = 0;
  int depth_ = 0;
};

absl::Status CheckLength(std::string_view text) {
  if (text.size() > kMaxLaunchExpressionLength)
    return absl::InvalidArgumentError(
        absl::StrCat("at most ", kMaxLaunchExpressionLength, " characters, got ", text.size()));
  return absl::OkStatus();
}

absl::Status Overflow(const Step& step) {
  return absl::InvalidArgumentError(
      absl::StrCat("the value overflows 64 bits at position ", step.position));
}

}  // namespace

absl::StatusOr<LaunchExpression> LaunchExpression::Parse(std::string_view text,
                                                         const std::vector<std::string>& names) {
  if (absl::Status s = CheckLength(text); !s.ok()) return s;
  Parser parser(text, names);
  absl::StatusOr<std::vector<Step>> steps = parser.Expression();
  if (!steps.ok()) return steps.status();
  if (parser.Peek() != '\0') return parser.Unexpected();
  return LaunchExpression(*std::move(steps));
}

absl::StatusOr<std::vector<LaunchExpression>> ParseLaunchList(std::string_view text,
                                                              const std::vector<std::string>& names,
                                                              size_t max_items) {
  if (absl::Status s = CheckLength(text); !s.ok()) return s;
  Parser parser(text, names);
  std::vector<LaunchExpression> items;
  while (true) {
    absl::StatusOr<std::vector<LaunchExpression::Step>> steps = parser.Expression();
    if (!steps.ok()) return steps.status();
    items.push_back(LaunchExpression(*std::move(steps)));
    if (parser.Peek() != ',') break;
    if (items.size() == max_items)
      return absl::InvalidArgumentError(
          absl::StrCat("at most ", max_items,
                       " comma-separated values; another starts at position ", parser.position()));
    parser.Advance();
  }
  if (parser.Peek() != '\0') return parser.Unexpected();
  return items;
}

absl::StatusOr<int64_t> LaunchExpression::Evaluate(const std::vector<int64_t>& values) const {
  std::vector<int64_t> stack;
  for (const Step& step : steps_) {
    if (step.kind == Kind::kNumber) {
      stack.push_back(step.value);
      continue;
    }
    if (step.kind == Kind::kSize) {
      if (size_t(step.value) >= values.size())
        return absl::InternalError("launch expression: a size has no value");
      stack.push_back(values[step.value]);
      continue;
    }
    if (step.kind == Kind::kNeg) {
      if (stack.back() == INT64_MIN) return Overflow(step);
      stack.back() = -stack.back();
      continue;
    }
    const int64_t b = stack.back();
    stack.pop_back();
    int64_t& a = stack.back();
    switch (step.kind) {
      case Kind::kAdd:
        if (__builtin_add_overflow(a, b, &a)) return Overflow(step);
        break;
      case Kind::kSub:
        if (__builtin_sub_overflow(a, b, &a)) return Overflow(step);
        break;
      case Kind::kMul:
        if (__builtin_mul_overflow(a, b, &a)) return Overflow(step);
        break;
      case Kind::kDiv:
      case Kind::kMod:
        if (b == 0)
          return absl::InvalidArgumentError(
              absl::StrCat("division by zero at position ", step.position));
        if (a == INT64_MIN && b == -1) return Overflow(step);
        a = step.kind == Kind::kDiv ? a / b : a % b;
        break;
      case Kind::kCdiv:
        if (b <= 0)
          return absl::InvalidArgumentError(absl::StrCat("cdiv at position ", step.position,
                                                         " needs a divisor above 0, got ", b));
        a = a / b + (a % b > 0 ? 1 : 0);
        break;
      case Kind::kMin:
        a = std::min(a, b);
        break;
      case Kind::kMax:
        a = std::max(a, b);
        break;
      default:
        return absl::InternalError("launch expression: unknown step");
    }
  }
  return stack.back();
}

}  // namespace kbench::proto::ops
