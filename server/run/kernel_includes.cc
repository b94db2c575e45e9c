#include "server/run/kernel_includes.h"

#include <algorithm>
#include <cctype>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace kbench::server {
namespace {

// The source with every backslash-newline removed (translation phase 2),
// and for each kept byte its 1-based line in the original.
struct Spliced {
  std::string text;
  std::vector<int> line;
};

Spliced Splice(std::string_view source) {
  Spliced out;
  out.text.reserve(source.size());
  out.line.reserve(source.size());
  int line = 1;
  for (size_t i = 0; i < source.size(); ++i) {
    if (source[i] == '\\') {
      size_t j = i + 1;
      if (j < source.size() && source[j] == '\r') ++j;
      if (j < source.size() && source[j] == '\n') {
        ++line;
        i = j;
        continue;
      }
    }
    out.text.push_back(source[i]);
    out.line.push_back(line);
    if (source[i] == '\n') ++line;
  }
  return out;
}

// Skips blanks (not newlines) and /* */ comments from `i`.
size_t SkipBlanks(const std::string& text, size_t i) {
  while (i < text.size()) {
    if (text[i] == ' ' || text[i] == '\t' || text[i] == '\v' || text[i] == '\f' ||
        text[i] == '\r') {
      ++i;
    } else if (text.compare(i, 2, "/*") == 0) {
      const size_t end = text.find("*/", i + 2);
      i = end == std::string::npos ? text.size() : end + 2;
    } else {
      break;
    }
  }
  return i;
}

bool IsIdentifierChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

std::string Shown(std::string_view text) {
  constexpr size_t kShown = 80;
  return text.size() <= kShown ? std::string(text) : std::string(text.substr(0, kShown)) + "...";
}

}  // namespace

const std::vector<std::string>& AllowedKernelHeaders() {
  static const std::vector<std::string> headers = {"cuda_fp16.h",
                                                   "cuda_bf16.h",
                                                   "cuda_fp8.h",
                                                   "mma.h",
                                                   "cuda_pipeline.h",
                                                   "cooperative_groups.h",
                                                   "cooperative_groups/reduce.h",
                                                   "cooperative_groups/memcpy_async.h"};
  return headers;
}

absl::Status CheckKernelIncludes(const std::string& field, std::string_view source) {
  const Spliced spliced = Splice(source);
  const std::string& text = spliced.text;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text.compare(i, 13, "__has_include") == 0 && (i == 0 || !IsIdentifierChar(text[i - 1])))
      return absl::InvalidArgumentError(absl::StrCat(
          field, ": line ", spliced.line[i],
          ": __has_include is not allowed in a kernel (it probes the server's files)"));
    size_t at = 0;
    if (text[i] == '#') {
      at = i + 1;
    } else if (text.compare(i, 2, "%:") == 0) {
      at = i + 2;
    } else {
      continue;
    }
    at = SkipBlanks(text, at);
    size_t end = at;
    while (end < text.size() && IsIdentifierChar(text[end])) ++end;
    const std::string directive = text.substr(at, end - at);
    if (directive != "include" && directive != "include_next" && directive != "import" &&
        directive != "embed")
      continue;
    const int line = spliced.line[i];
    const size_t name_at = SkipBlanks(text, end);
    const size_t line_end = std::min(text.find('\n', name_at), text.size());
    const std::string rest = text.substr(name_at, line_end - name_at);
    std::string header;
    if (directive == "include" && rest.size() >= 2 && (rest[0] == '<' || rest[0] == '"')) {
      const size_t close = rest.find(rest[0] == '<' ? '>' : '"', 1);
      if (close != std::string::npos) header = rest.substr(1, close - 1);
    }
    const auto& allowed = AllowedKernelHeaders();
    if (header.empty() || std::find(allowed.begin(), allowed.end(), header) == allowed.end()) {
      const std::string what =
          header.empty() ? absl::StrCat("#", directive, " ", Shown(rest)) : Shown(header);
      return absl::InvalidArgumentError(absl::StrCat(
          field, ": line ", line, ": #include of '", what,
          "' is not allowed; a kernel may include only ", absl::StrJoin(allowed, ", ")));
    }
  }
  return absl::OkStatus();
}

}  // namespace kbench::server
