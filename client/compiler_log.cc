#include "client/compiler_log.h"

#include <cctype>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace kbench::client {
namespace {

// NVRTC indents the source line it quotes, and its caret line, by this.
constexpr size_t kQuoteIndent = 2;

// "name(12): rest" -> name, 12, rest.
bool SplitLocation(absl::string_view line, absl::string_view& name, absl::string_view& number,
                   absl::string_view& rest) {
  const size_t close = line.find("): ");
  if (close == absl::string_view::npos) return false;
  const size_t open = line.rfind('(', close);
  if (open == absl::string_view::npos || open == 0 || open + 1 == close) return false;
  for (size_t i = open + 1; i < close; ++i)
    if (!std::isdigit(static_cast<unsigned char>(line[i]))) return false;
  name = line.substr(0, open);
  number = line.substr(open + 1, close - open - 1);
  rest = line.substr(close + 3);
  return true;
}

// The 1-based column of a caret line's '^', or 0 when it is none.
size_t CaretColumn(absl::string_view line) {
  const size_t caret = line.find('^');
  if (caret == absl::string_view::npos || caret < kQuoteIndent) return 0;
  if (line.find_first_not_of(' ') != caret) return 0;
  return caret - kQuoteIndent + 1;
}

}  // namespace

std::string CompilerStyleLog(absl::string_view log) {
  std::vector<absl::string_view> lines = absl::StrSplit(log, '\n');
  std::vector<std::string> out;
  for (size_t i = 0; i < lines.size(); ++i) {
    absl::string_view name, number, rest;
    if (!SplitLocation(lines[i], name, number, rest)) {
      out.emplace_back(lines[i]);
      continue;
    }
    const size_t column = i + 2 < lines.size() ? CaretColumn(lines[i + 2]) : 0;
    const std::string location = std::string(name) + ":" + std::string(number) + ":";
    out.push_back(column > 0 ? location + std::to_string(column) + ": " + std::string(rest)
                             : location + " " + std::string(rest));
  }
  return absl::StrJoin(out, "\n");
}

}  // namespace kbench::client
