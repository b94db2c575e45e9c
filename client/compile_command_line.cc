#include "client/compile_command_line.h"

#include <algorithm>

#include "client/flag_errors.h"
#include "client/flag_values.h"
#include "proto/ops/kernel_abi.h"

namespace kbench::client {

CompileCommandLine::CompileCommandLine(CLI::App& app) {
  command_ = app.add_subcommand(
      "compile",
      "Compile your kernel on the server for its GPU's architecture (sm_90a on a CPU "
      "server) without running it: compiler errors as a compiler prints them, or "
      "registers, spills, shared and local memory.");
  command_->add_option("FILE", file_, "The kernel's source: CUDA C++, or PTX (.ptx)")->required();
  command_
      ->add_option("--op", op_,
                   "The op whose ABI the kernel follows: vector-add or attention "
                   "(default: vector-add)")
      ->type_name("OP");
  command_
      ->add_option_function<std::string>(
          "--dtype",
          [this](const std::string& text) { dtype_ = ValueOrThrow(ParseDType(text), "--dtype"); },
          "Element type kbench_t stands for: " + DTypeChoices() + " (default: fp32)")
      ->type_name("DTYPE");
  AddKernelFlags(*command_, flags_, /*kernel_option=*/false);
  command_->footer(
      "\nExamples:\n"
      "  kbench compile my_add.cu\n"
      "  kbench compile flash.cu --op attention --dtype fp16 -O 3 --maxrregcount 128\n"
      "\nThe ABI, the launch spec and the limits: docs/KERNELS.md.\n");
}

std::optional<CompileCommand> CompileCommandLine::Parsed() const {
  if (!command_->parsed()) return std::nullopt;
  CompileCommand command;
  command.file = file_;
  std::string op = op_;
  std::replace(op.begin(), op.end(), '-', '_');
  if (proto::ops::AbiOf(op) == nullptr)
    throw CLI::ValidationError("--op", "must be vector-add or attention, not '" + op_ + "'");
  command.request.set_op(op);
  command.request.set_dtype(dtype_);
  *command.request.mutable_kernel() = ValueOrThrow(ReadKernelFile(file_, flags_), "FILE");
  return command;
}

}  // namespace kbench::client
