// NVRTC's messages as a compiler driver prints them. NVRTC writes
//   my_add.cu(12): error: identifier "x" is undefined
//       c[i] = x;
//              ^
// (the source line indented by two blanks, a caret under the column); this
// gives
//   my_add.cu:12:14: error: identifier "x" is undefined
//       c[i] = x;
//              ^
// which editors and terminals link to the place. Lines of any other shape
// pass unchanged; without a caret line the column is left out.
#pragma once

#include <string>
#include "absl/strings/string_view.h"

namespace kbench::client {

std::string CompilerStyleLog(absl::string_view log);

}  // namespace kbench::client
