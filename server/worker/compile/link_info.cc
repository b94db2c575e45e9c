#include "server/worker/compile/link_info.h"

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace kbench::server::worker::compile {
namespace {

// The number just before `unit` in `line` ("10 registers" -> 10).
bool NumberBefore(absl::string_view line, absl::string_view unit, uint64_t& value) {
  const size_t at = line.find(unit);
  if (at == absl::string_view::npos) return false;
  size_t begin = at;
  while (begin > 0 && line[begin - 1] == ' ') --begin;
  size_t end = begin;
  while (begin > 0 && line[begin - 1] >= '0' && line[begin - 1] <= '9') --begin;
  return begin < end && absl::SimpleAtoi(line.substr(begin, end - begin), &value);
}

// The function a "Function properties for X" or "Compiling entry function
// 'X'" line names.
absl::string_view NamedFunction(absl::string_view line, absl::string_view marker) {
  absl::string_view name = line.substr(line.find(marker) + marker.size());
  name = absl::StripAsciiWhitespace(name);
  name = absl::StripSuffix(name, ":");
  name = absl::StripPrefix(name, "'");
  name = absl::StripSuffix(name, "'");
  return name;
}

}  // namespace

void ReadLinkInfo(std::string_view info_text, std::string_view entry_text,
                  v1::CompileFacts& facts) {
  const absl::string_view info(info_text.data(), info_text.size());
  const absl::string_view entry(entry_text.data(), entry_text.size());
  absl::string_view function;
  for (absl::string_view line : absl::StrSplit(info, '\n')) {
    uint64_t value = 0;
    if (absl::StrContains(line, "Function properties for ")) {
      function = NamedFunction(line, "Function properties for ");
      continue;
    }
    if (absl::StrContains(line, "Compiling entry function ")) {
      function = NamedFunction(line.substr(0, line.find(" for '")), "Compiling entry function ");
      continue;
    }
    if (absl::StrContains(line, "bytes gmem") && NumberBefore(line, "bytes gmem", value)) {
      facts.set_global_memory_bytes(std::max<uint64_t>(facts.global_memory_bytes(), value));
      continue;
    }
    // nvJitLink's own summary adds the 1 KiB of shared memory the system
    // reserves per block; ptxas's lines give what the kernel declares.
    if (function != entry || !absl::StartsWith(line, "ptxas")) continue;
    if (NumberBefore(line, "bytes stack frame", value)) facts.set_local_memory_bytes(value);
    if (NumberBefore(line, "bytes spill stores", value)) facts.set_spill_store_bytes(value);
    if (NumberBefore(line, "bytes spill loads", value)) facts.set_spill_load_bytes(value);
    if (NumberBefore(line, "registers", value)) facts.set_registers_per_thread(value);
    if (NumberBefore(line, "bytes smem", value)) facts.set_static_shared_memory_bytes(value);
  }
}

}  // namespace kbench::server::worker::compile
