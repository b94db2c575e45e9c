// `kbench compile FILE`: checks a kernel without running it. Its flags: the
// op whose ABI the kernel follows (--op), the dtype, and the kernel flags
// (kernel_file.h).
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>

#include "client/kernel_file.h"
#include "kbench/v1/kbench.pb.h"

namespace kbench::client {

struct CompileCommand {
  std::string file;  // as the user gave it
  v1::CompileKernelRequest request;
};

// Adds `compile` to the app it is made with; Parsed() reads it (reading the
// file: a CLI::ValidationError when it cannot). Lives as long as the parse.
class CompileCommandLine {
 public:
  explicit CompileCommandLine(CLI::App& app);
  std::optional<CompileCommand> Parsed() const;

 private:
  CLI::App* command_ = nullptr;
  std::string file_;
  std::string op_ = "vector-add";
  v1::DType dtype_ = v1::DTYPE_UNSPECIFIED;
  KernelFlags flags_;
};

}  // namespace kbench::client
