// Text from the server shown on a terminal. Labels, user names, error
// messages and peers come from other users (a learner's label reaches the
// instructor's `kbench runs`), and a terminal obeys the control sequences
// in what it prints: ESC can move the cursor, rewrite earlier lines, set
// the window title or, on some terminals, answer back as typed input.
#pragma once

#include <string>
#include <string_view>

namespace kbench::client {

// `text` with every control character made visible: the C0 controls (tab
// and newline included), DEL and the C1 controls as "\x1b", "\x7f" and
// "\u009b"; everything else as it is.
std::string Printable(std::string_view text);

}  // namespace kbench::client
