// A learner's kernel file as the request carries it (kbench.v1.KernelSource):
// the flags that say how to compile and launch it, and the `// kbench:`
// line a source may carry instead, e.g.
//   // kbench: grid=cdiv(n,1024) block=256 smem=0 entry=my_add
// (key=value words separated by blanks, so a value holds no blank). Flags
// win over the line. The kernel's name is the file's name; its language
// PTX for a .ptx file, CUDA C++ otherwise; its entry --entry, else the
// line's entry=, else the file's stem (my_add.cu: my_add).
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>
#include "absl/strings/string_view.h"

#include "absl/status/statusor.h"
#include "kbench/v1/kbench.pb.h"

namespace kbench::client {

struct KernelFlags {
  std::vector<std::string> files;
  std::string entry;
  v1::LaunchSpec launch;  // empty fields: the file's line, if any
  std::vector<std::string> options;
};

// Adds --entry, --grid, --block, --smem, -O, --use-fast-math, --lineinfo
// and --maxrregcount to `command` (each file's source may set the launch
// instead). --kernel FILE (several allowed) only when `kernel_option`;
// `compile` takes its one FILE as a positional.
void AddKernelFlags(CLI::App& command, KernelFlags& flags, bool kernel_option);

// The KernelSource of `path`; INVALID_ARGUMENT naming the file when it
// cannot be read or its `// kbench:` line has an unknown key.
absl::StatusOr<v1::KernelSource> ReadKernelFile(const std::string& path, const KernelFlags& flags);

// The launch spec and entry of a source's `// kbench:` line (the first).
absl::StatusOr<v1::KernelSource> ParseKbenchLine(absl::string_view source);

}  // namespace kbench::client
