#include "server/worker/compile/ptx_abi.h"

#include <algorithm>
#include <cctype>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace kbench::server::worker::compile {
namespace {

// PTX with its comments blanked out (they may mention ".entry").
std::string WithoutComments(absl::string_view ptx) {
  std::string out;
  out.reserve(ptx.size());
  for (size_t i = 0; i < ptx.size(); ++i) {
    if (ptx.compare(i, 2, "//") == 0) {
      while (i < ptx.size() && ptx[i] != '\n') ++i;
      if (i < ptx.size()) out.push_back('\n');
    } else if (ptx.compare(i, 2, "/*") == 0) {
      const size_t end = ptx.find("*/", i + 2);
      i = end == absl::string_view::npos ? ptx.size() : end + 1;
      out.push_back(' ');
    } else {
      out.push_back(ptx[i]);
    }
  }
  return out;
}

bool IsPtxNameChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '%';
}

// Bytes of a PTX fundamental type: .u64 8, .f16 2, .b8 1, ...
uint32_t TypeBytes(absl::string_view type) {
  if (type == ".pred") return 1;
  if (type.size() < 3) return 0;
  const char kind = type[1];
  if (kind != 'u' && kind != 's' && kind != 'b' && kind != 'f') return 0;
  uint32_t bits = 0;
  if (!absl::SimpleAtoi(type.substr(2), &bits) || bits % 8 != 0) return 0;
  return bits / 8;
}

// One ".param ..." declaration: its type and size.
absl::StatusOr<PtxParameter> ReadParameter(absl::string_view text, const std::string& entry) {
  std::vector<absl::string_view> words =
      absl::StrSplit(text, absl::ByAnyChar(" \t\r\n"), absl::SkipEmpty());
  if (words.empty() || words.front() != ".param")
    return absl::InvalidArgumentError(absl::StrCat("entry '", entry,
                                                   "': a parameter that is not a .param: '",
                                                   std::string(text.substr(0, 80)), "'"));
  PtxParameter parameter;
  bool pointer = false, global = false;
  for (size_t i = 1; i + 1 < words.size(); ++i) {
    const uint32_t bytes = TypeBytes(words[i]);
    if (bytes > 0) {
      parameter.type = std::string(words[i]);
      parameter.bytes = bytes;
    }
    pointer |= words[i] == ".ptr";
    global |= words[i] == ".global";
  }
  parameter.global_pointer = pointer && global && parameter.bytes == 8;
  if (parameter.bytes == 0)
    return absl::InvalidArgumentError(absl::StrCat("entry '", entry,
                                                   "': a parameter of unknown type: '",
                                                   std::string(text.substr(0, 80)), "'"));
  // An array parameter ("name[16]") is that many elements.
  absl::string_view name = words.back();
  if (const size_t open = name.find('['); open != absl::string_view::npos) {
    uint32_t count = 0;
    absl::string_view digits = name.substr(open + 1);
    digits = absl::StripSuffix(digits, "]");
    if (!absl::SimpleAtoi(digits, &count) || count == 0 || count > (1u << 20))
      return absl::InvalidArgumentError(absl::StrCat(
          "entry '", entry, "': a parameter array of unknown size: '", std::string(name), "'"));
    parameter.bytes *= count;
  }
  return parameter;
}

std::string Sizes(const std::vector<uint32_t>& bytes) {
  return absl::StrCat("(", absl::StrJoin(bytes, ", "), " bytes)");
}

}  // namespace

absl::StatusOr<std::vector<PtxEntry>> ReadPtxEntries(absl::string_view ptx) {
  const std::string text = WithoutComments(ptx);
  std::vector<PtxEntry> entries;
  size_t at = 0;
  while ((at = text.find(".entry", at)) != std::string::npos) {
    const bool token =
        (at == 0 || !IsPtxNameChar(text[at - 1])) &&
        (at + 6 < text.size() && std::isspace(static_cast<unsigned char>(text[at + 6])));
    at += 6;
    if (!token) continue;
    while (at < text.size() && std::isspace(static_cast<unsigned char>(text[at]))) ++at;
    size_t end = at;
    while (end < text.size() && IsPtxNameChar(text[end])) ++end;
    PtxEntry entry;
    entry.name = text.substr(at, end - at);
    at = end;
    while (at < text.size() && std::isspace(static_cast<unsigned char>(text[at]))) ++at;
    if (at < text.size() && text[at] == '(') {
      const size_t close = text.find(')', at);
      if (close == std::string::npos)
        return absl::InvalidArgumentError(
            absl::StrCat("entry '", entry.name, "': its parameter list does not end"));
      const absl::string_view list(text.data() + at + 1, close - at - 1);
      if (list.find_first_not_of(" \t\r\n") != absl::string_view::npos)
        for (absl::string_view one : absl::StrSplit(list, ',')) {
          absl::StatusOr<PtxParameter> parameter = ReadParameter(one, entry.name);
          if (!parameter.ok()) return parameter.status();
          entry.parameters.push_back(*parameter);
        }
      at = close + 1;
    }
    entries.push_back(std::move(entry));
  }
  return entries;
}

absl::Status CheckEntryAbi(const std::vector<PtxEntry>& entries, const std::string& entry,
                           const proto::ops::KernelAbi& abi) {
  std::vector<uint32_t> expected;
  for (const proto::ops::AbiParameter& p : abi.parameters) expected.push_back(p.bytes);
  const std::string wanted = absl::StrCat(abi.op, " kernels take ", expected.size(), " parameters ",
                                          Sizes(expected), ": ", abi.Signature());
  const PtxEntry* found = nullptr;
  std::vector<std::string> names;
  for (const PtxEntry& e : entries) {
    names.push_back(e.name);
    if (e.name == entry) found = &e;
  }
  if (found == nullptr) {
    if (names.empty())
      return absl::InvalidArgumentError(absl::StrCat("kernel.entry: no kernel named '", entry,
                                                     "': the module has no kernel (a __global__ "
                                                     "function, or a PTX .entry); ",
                                                     wanted));
    return absl::InvalidArgumentError(
        absl::StrCat("kernel.entry: no kernel named '", entry,
                     "' in the module; its kernels: ", absl::StrJoin(names, ", "),
                     " (in CUDA C++ declare the kernel extern \"C\" so that its name is kept)"));
  }
  std::vector<uint32_t> got;
  for (const PtxParameter& p : found->parameters) got.push_back(p.bytes);
  // Triton's hidden scratch pointers after the op's parameters.
  const auto& parameters = found->parameters;
  if (parameters.size() == expected.size() + proto::ops::kTritonHiddenPointers &&
      std::equal(expected.begin(), expected.end(), got.begin()) &&
      std::all_of(parameters.end() - proto::ops::kTritonHiddenPointers, parameters.end(),
                  [](const PtxParameter& p) { return p.global_pointer; }))
    return absl::OkStatus();
  if (got != expected)
    return absl::InvalidArgumentError(
        absl::StrCat("kernel.entry: '", entry, "' takes ", got.size(), " parameters",
                     got.empty() ? std::string() : " " + Sizes(got), "; ", wanted));
  return absl::OkStatus();
}

std::vector<std::string> ReadPtxExternalFunctions(absl::string_view ptx) {
  const std::string text = WithoutComments(ptx);
  std::vector<std::string> names;
  const std::string extern_func = ".extern .func";
  for (size_t at = text.find(extern_func); at != std::string::npos;
       at = text.find(extern_func, at + extern_func.size())) {
    size_t i = at + extern_func.size();
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    if (i < text.size() && text[i] == '(') {  // the return value's parameter
      const size_t close = text.find(')', i);
      if (close == std::string::npos) break;
      i = close + 1;
      while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    }
    size_t end = i;
    while (end < text.size() && IsPtxNameChar(text[end])) ++end;
    if (end > i) names.push_back(text.substr(i, end - i));
  }
  return names;
}

absl::Status CheckExternalCalls(absl::string_view ptx) {
  for (const std::string& name : ReadPtxExternalFunctions(ptx)) {
    if (name == "vprintf" || name == "__assertfail") continue;
    std::string why = "only printf and assert are linked";
    if (name == "malloc" || name == "free") {
      why =
          "the device heap outlives a launch, so a kernel could keep earlier outputs there; "
          "use the buffers the op passes and shared memory";
    } else if (absl::StartsWith(name, "cudaLaunchDevice") ||
               absl::StartsWith(name, "cudaGetParameterBuffer") ||
               absl::StartsWith(name, "__cudaCDP")) {
      why = "dynamic parallelism (launching kernels from the device) is not linked";
    }
    return absl::InvalidArgumentError(
        absl::StrCat("the kernel calls ", name, ", which kernels here may not call: ", why));
  }
  return absl::OkStatus();
}

}  // namespace kbench::server::worker::compile
