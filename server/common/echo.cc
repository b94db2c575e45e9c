#include "server/common/echo.h"

#include "absl/strings/str_cat.h"
#include "server/common/log.h"

namespace kbench::server {

std::string Echo(std::string_view input) {
  if (input.size() <= kMaxEchoBytes) return Quoted(input);
  return absl::StrCat(Quoted(input.substr(0, kMaxEchoBytes)), "... (", input.size(), " bytes)");
}

}  // namespace kbench::server
