#include "client/terminal_text.h"

#include <cstdio>

namespace kbench::client {

std::string Printable(std::string_view text) {
  std::string printable;
  printable.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const auto byte = static_cast<unsigned char>(text[i]);
    char escaped[8];
    if (byte < 0x20 || byte == 0x7f) {
      std::snprintf(escaped, sizeof(escaped), "\\x%02x", byte);
      printable += escaped;
    } else if (byte == 0xc2 && i + 1 < text.size() &&
               static_cast<unsigned char>(text[i + 1]) >= 0x80 &&
               static_cast<unsigned char>(text[i + 1]) <= 0x9f) {
      // U+0080..U+009F in UTF-8: the C1 controls (U+009B is CSI).
      std::snprintf(escaped, sizeof(escaped), "\\u%04x", static_cast<unsigned char>(text[i + 1]));
      printable += escaped;
      ++i;
    } else {
      printable += text[i];
    }
  }
  return printable;
}

}  // namespace kbench::client
