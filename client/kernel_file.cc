#include "client/kernel_file.h"

#include <filesystem>
#include <fstream>
#include <iterator>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace kbench::client {

void AddKernelFlags(CLI::App& command, KernelFlags& flags, bool kernel_option) {
  if (kernel_option)
    command
        .add_option("--kernel", flags.files,
                    "Your kernel's source (CUDA C++, or PTX for a .ptx file), run as one "
                    "more variant named for the file; several allowed (docs/KERNELS.md)")
        ->type_name("FILE")
        ->group("Your kernels");
  const std::string group = "Your kernels";
  command
      .add_option("--entry", flags.entry,
                  "The kernel function (default: the source's `// kbench: entry=` or the "
                  "file's stem)")
      ->type_name("NAME")
      ->group(group);
  command
      .add_option("--grid", *flags.launch.mutable_grid(),
                  "Grid over the op's sizes, e.g. 'cdiv(n,256)' or 'cdiv(N,64),B*H' "
                  "(default: the source's `// kbench: grid=`)")
      ->type_name("EXPR")
      ->group(group);
  command.add_option("--block", *flags.launch.mutable_block(), "Block, e.g. 256 or '32,4'")
      ->type_name("EXPR")
      ->group(group);
  command
      .add_option("--smem", *flags.launch.mutable_shared_memory_bytes(),
                  "Dynamic shared memory bytes (default: 0)")
      ->type_name("EXPR")
      ->group(group);
  command
      .add_option_function<int>(
          "-O",
          [&flags](int level) {
            if (level < 0 || level > 3)
              throw CLI::ValidationError("-O", "must be 0 to 3, got " + std::to_string(level));
            flags.options.push_back("-O" + std::to_string(level));
          },
          "Optimisation level of ptxas, 0 to 3 (default: 3)")
      ->type_name("LEVEL")
      ->group(group);
  command
      .add_flag_callback(
          "--use-fast-math", [&flags] { flags.options.push_back("--use_fast_math"); },
          "Compile with --use_fast_math (CUDA C++)")
      ->group(group);
  command
      .add_flag_callback(
          "--lineinfo", [&flags] { flags.options.push_back("-lineinfo"); },
          "Keep line information for profilers")
      ->group(group);
  command
      .add_option_function<int>(
          "--maxrregcount",
          [&flags](int n) { flags.options.push_back("--maxrregcount=" + std::to_string(n)); },
          "Most registers per thread, 16 to 255")
      ->type_name("N")
      ->group(group);
}

absl::StatusOr<v1::KernelSource> ParseKbenchLine(absl::string_view source) {
  v1::KernelSource kernel;
  for (absl::string_view line : absl::StrSplit(source, '\n')) {
    line = absl::StripAsciiWhitespace(line);
    if (!absl::ConsumePrefix(&line, "//")) continue;
    line = absl::StripLeadingAsciiWhitespace(line);
    if (!absl::ConsumePrefix(&line, "kbench:")) continue;
    for (absl::string_view word : absl::StrSplit(line, absl::ByAnyChar(" \t"), absl::SkipEmpty())) {
      const std::pair<absl::string_view, absl::string_view> kv = absl::StrSplit(word, '=');
      const std::string value(kv.second);
      if (kv.first == "grid")
        kernel.mutable_launch()->set_grid(value);
      else if (kv.first == "block")
        kernel.mutable_launch()->set_block(value);
      else if (kv.first == "smem")
        kernel.mutable_launch()->set_shared_memory_bytes(value);
      else if (kv.first == "entry")
        kernel.set_entry(value);
      else
        return absl::InvalidArgumentError(absl::StrCat(
            "the `// kbench:` line has an unknown key '", std::string(kv.first),
            "'; the keys are grid, block, smem, entry (key=value, no blanks in a value)"));
    }
    break;
  }
  return kernel;
}

absl::StatusOr<v1::KernelSource> ReadKernelFile(const std::string& path, const KernelFlags& flags) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::InvalidArgumentError(absl::StrCat("cannot read kernel file ", path));
  std::string source((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  absl::StatusOr<v1::KernelSource> kernel = ParseKbenchLine(source);
  if (!kernel.ok())
    return absl::InvalidArgumentError(absl::StrCat(path, ": ", kernel.status().message()));
  const std::filesystem::path file(path);
  kernel->set_name(file.filename().string());
  kernel->set_language(file.extension() == ".ptx" ? v1::KERNEL_LANGUAGE_PTX
                                                  : v1::KERNEL_LANGUAGE_CUDA_CPP);
  if (!flags.entry.empty()) kernel->set_entry(flags.entry);
  if (kernel->entry().empty()) kernel->set_entry(file.stem().string());
  v1::LaunchSpec& launch = *kernel->mutable_launch();
  if (!flags.launch.grid().empty()) launch.set_grid(flags.launch.grid());
  if (!flags.launch.block().empty()) launch.set_block(flags.launch.block());
  if (!flags.launch.shared_memory_bytes().empty())
    launch.set_shared_memory_bytes(flags.launch.shared_memory_bytes());
  for (const std::string& option : flags.options) kernel->add_options(option);
  kernel->set_source(std::move(source));
  return kernel;
}

}  // namespace kbench::client
