#include "client/compile_command.h"

#include <iostream>

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "client/compiler_log.h"
#include "kbench/v1/kbench.grpc.pb.h"
#include "proto/ops/dtypes.h"

namespace kbench::client {
namespace {

std::string DTypeOf(const CompileCommand& command) {
  return proto::ops::DTypeText(
      command.request.dtype() == v1::DTYPE_UNSPECIFIED ? v1::DTYPE_FP32 : command.request.dtype());
}

}  // namespace

std::string FormatCompileTable(const CompileCommand& command, const v1::CompileFacts& facts) {
  std::string text = absl::StrFormat(
      "%s: %s kernel '%s' compiled for %s in %.0f ms%s\n", command.file, command.request.op(),
      facts.entry(), facts.arch(), facts.compile_ms(), facts.cached() ? " (cached)" : "");
  auto row = [&](const char* what, const std::string& value) {
    absl::StrAppendFormat(&text, "  %-24s %s\n", what, value);
  };
  row("dtype", DTypeOf(command));
  row("registers per thread", absl::StrCat(facts.registers_per_thread()));
  row("spill stores / loads",
      absl::StrCat(facts.spill_store_bytes(), " / ", facts.spill_load_bytes(), " bytes"));
  row("static shared memory", absl::StrCat(facts.static_shared_memory_bytes(), " bytes"));
  row("local memory", absl::StrCat(facts.local_memory_bytes(), " bytes per thread"));
  row("global memory", absl::StrCat(facts.global_memory_bytes(), " bytes"));
  row("source sha256", facts.source_sha256());
  return text;
}

std::string FormatCompileJson(const CompileCommand& command, const v1::CompileFacts& facts) {
  nlohmann::json json = {{"file", command.file},
                         {"kernel", command.request.kernel().name()},
                         {"op", command.request.op()},
                         {"dtype", DTypeOf(command)},
                         {"arch", facts.arch()},
                         {"entry", facts.entry()},
                         {"registers_per_thread", facts.registers_per_thread()},
                         {"spill_store_bytes", facts.spill_store_bytes()},
                         {"spill_load_bytes", facts.spill_load_bytes()},
                         {"static_shared_memory_bytes", facts.static_shared_memory_bytes()},
                         {"local_memory_bytes", facts.local_memory_bytes()},
                         {"global_memory_bytes", facts.global_memory_bytes()},
                         {"cached", facts.cached()},
                         {"compile_ms", facts.compile_ms()},
                         {"source_sha256", facts.source_sha256()},
                         {"log", facts.log()}};
  return json.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

std::string FormatCompileCsv(const CompileCommand& command, const v1::CompileFacts& facts) {
  // The kernel's name (the file's name, admitted by the server as letters,
  // digits and . _ -) needs no quoting.
  return absl::StrCat(
      "kernel,op,dtype,arch,entry,registers_per_thread,spill_store_bytes,spill_load_bytes,"
      "static_shared_memory_bytes,local_memory_bytes,global_memory_bytes,cached,compile_ms,"
      "source_sha256\n",
      command.request.kernel().name(), ",", command.request.op(), ",", DTypeOf(command), ",",
      facts.arch(), ",", facts.entry(), ",", facts.registers_per_thread(), ",",
      facts.spill_store_bytes(), ",", facts.spill_load_bytes(), ",",
      facts.static_shared_memory_bytes(), ",", facts.local_memory_bytes(), ",",
      facts.global_memory_bytes(), ",", facts.cached() ? "true" : "false", ",",
      absl::StrFormat("%.1f", facts.compile_ms()), ",", facts.source_sha256(), "\n");
}

ExitCode RunCompileCommand(const GlobalOptions& options, const CallOptions& call,
                           InterruptWatcher& watcher, const CompileCommand& command) {
  std::shared_ptr<grpc::Channel> channel;
  grpc::Status status = ConnectToServer(call, watcher, channel);
  CallStage stage = CallStage::kConnecting;
  v1::CompileFacts facts;
  if (status.ok()) {
    stage = CallStage::kCalling;
    auto stub = v1::KernelBench::NewStub(channel);
    grpc::ClientContext context;
    PrepareContext(call, context);
    InterruptWatcher::Watch watch(watcher, &context);
    status = stub->CompileKernel(&context, command.request, &facts);
  }
  if (!status.ok()) {
    if (watcher.interrupted()) {
      std::cerr << "kbench: interrupted" << std::endl;
      return ExitCode::kInterrupted;
    }
    // A compile error: the compiler's log, as a compiler prints it.
    if (status.error_code() == grpc::StatusCode::INVALID_ARGUMENT &&
        status.error_message().find(": compile failed\n") != std::string::npos) {
      const std::string& message = status.error_message();
      std::cerr << CompilerStyleLog(message.substr(message.find('\n') + 1)) << std::endl;
      return ExitCode::kBadArguments;
    }
    std::cerr << DescribeRpcFailure(status, options.server, options.timeout_s, stage) << std::endl;
    return ExitCodeForStatus(status.error_code());
  }
  if (!facts.log().empty()) std::cerr << CompilerStyleLog(facts.log()) << std::endl;
  switch (options.format) {
    case OutputFormat::kTable:
      std::cout << FormatCompileTable(command, facts) << std::flush;
      break;
    case OutputFormat::kJson:
      std::cout << FormatCompileJson(command, facts) << std::flush;
      break;
    case OutputFormat::kCsv:
      std::cout << FormatCompileCsv(command, facts) << std::flush;
      break;
  }
  return ExitCode::kOk;
}

}  // namespace kbench::client
