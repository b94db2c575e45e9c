// Carries out `kbench compile`: sends the kernel to CompileKernel and
// prints what the compiler made (a table, --json or --csv on stdout, the
// compiler's warnings on stderr), or its errors on stderr as a compiler
// prints them (compiler_log.h).
#pragma once

#include <string>

#include "client/command_line.h"
#include "client/compile_command_line.h"
#include "client/exit_codes.h"
#include "client/interrupt_watcher.h"
#include "client/server_calls.h"
#include "kbench/v1/kbench.pb.h"

namespace kbench::client {

ExitCode RunCompileCommand(const GlobalOptions& options, const CallOptions& call,
                           InterruptWatcher& watcher, const CompileCommand& command);

// The facts as the table, JSON object and CSV (header and row) print them.
std::string FormatCompileTable(const CompileCommand& command, const v1::CompileFacts& facts);
std::string FormatCompileJson(const CompileCommand& command, const v1::CompileFacts& facts);
std::string FormatCompileCsv(const CompileCommand& command, const v1::CompileFacts& facts);

}  // namespace kbench::client
