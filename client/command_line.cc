#include "client/command_line.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>
#include <vector>

#include "client/flag_errors.h"
#include "client/flag_values.h"
#include "client/kernel_file.h"
#include "client/problem_fields.h"
#include "client/timing_flags.h"
#include "proto/ops/registry.h"

namespace kbench::client {
namespace {

constexpr char kDefaultServer[] = "localhost:50051";

constexpr char kExitCodesHelp[] =
    "Exit codes:\n"
    "  0    every variant passed verification\n"
    "  1    a variant failed verification (results are still printed)\n"
    "  2    bad arguments, or the server refused the request\n"
    "       (INVALID_ARGUMENT; its message names the field and the limit)\n"
    "  3    server unreachable, or it failed the call (UNAVAILABLE, INTERNAL,\n"
    "       DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED, ...)\n"
    "  4    not signed in (no, an unknown or a revoked token) or not allowed\n"
    "       (e.g. another learner's runs)\n"
    "  130  interrupted by Ctrl-C; the run was cancelled on the server\n";

constexpr char kGlobalOptionsHelp[] =
    "Global options (before or after the subcommand; see kbench --help):\n"
    "  --server HOST:PORT, --timeout SECONDS, --json | --csv [--no-header], --quiet,\n"
    "  --tls [--ca FILE], --insecure-token\n";

constexpr char kEnvironmentHelp[] =
    "\nEnvironment:\n"
    "  KBENCH_SERVER  server address (HOST:PORT) used when --server is not\n"
    "                 given; without either, localhost:50051\n"
    "  KBENCH_TOKEN   the token to send (else the one `kbench login` saved in\n"
    "                 $XDG_CONFIG_HOME/kbench/credentials, ~/.config/kbench/...)\n"
    "\n"
    "Output: progress on stderr (unless --quiet); results on stdout as a\n"
    "table, or one JSON object (--json), or CSV with a header (--csv).\n";

// The run subcommand of `op`: its name with '-' for '_'.
std::string SubcommandName(const proto::ops::Op& op) {
  std::string name(op.name());
  std::replace(name.begin(), name.end(), '_', '-');
  return name;
}

// "naive,fused": the op's variant names, for the help of --variant.
std::string VariantExample(const proto::ops::Op& op) {
  std::string text;
  for (const proto::ops::VariantSpec& variant : op.variants()) {
    text += (text.empty() ? "" : ",") + variant.name;
  }
  return text;
}

std::string ExampleLines(const proto::ops::Op& op) {
  std::string text;
  for (const std::string& example : op.examples()) text += "  " + example + "\n";
  return text;
}

std::string TopFooter() {
  std::string text = std::string(kEnvironmentHelp) + "\nExamples:\n  kbench info\n";
  for (const proto::ops::Op* op : proto::ops::AllOps()) text += ExampleLines(*op);
  return text +
         "  kbench sweep attention --seq 2^9..2^12 --dtype fp16,bf16 "
         "--variant naive,fused --out att.csv\n"
         "  kbench runs --label lab3\n"
         "  kbench show RUN_ID\n"
         "  kbench export --label lab3 --csv > cohort.csv\n"
         "  kbench quota show\n"
         "  kbench submit lab1 my_add.cu     (then: kbench leaderboard lab1)\n"
         "  KBENCH_SERVER=gpu1:50051 kbench --json info\n"
         "\n"
         "Run 'kbench SUBCOMMAND --help' for the options of each subcommand.\n";
}

// Flags both run subcommands share; copied into the request after parsing.
struct RunFlags {
  std::vector<std::string> variants;
  v1::DType dtype = v1::DTYPE_UNSPECIFIED;
  v1::TimingOptions timing;
  uint64_t seed = 0;
  std::string label;
  v1::Fault fault = v1::FAULT_NONE;
  KernelFlags kernels;
};

void AddRunFlags(CLI::App& command, RunFlags& flags, const std::string& variant_example) {
  command
      .add_option_function<std::string>(
          "--variant",
          [&flags](const std::string& text) {
            flags.variants = ValueOrThrow(SplitVariantList(text), "--variant");
          },
          "Comma-separated variants to run, e.g. " + variant_example +
              "; the first is the baseline of the speedups (default: every "
              "variant the server offers)")
      ->type_name("LIST");
  command
      .add_option_function<std::string>(
          "--dtype",
          [&flags](const std::string& text) {
            flags.dtype = ValueOrThrow(ParseDType(text), "--dtype");
          },
          "Element type: " + DTypeChoices() + " (default: fp32)")
      ->type_name("DTYPE");
  AddTimingFlags(command, flags.timing);
  command
      .add_option("--seed", flags.seed,
                  "Seed of the inputs; the same seed gives the same inputs "
                  "(default: 0, the server picks one and reports it)")
      ->type_name("N");
  command.add_option("--label", flags.label, "Free text stored with the run, e.g. an assignment")
      ->type_name("TEXT");
  command
      .add_option_function<std::string>(
          "--fault",
          [&flags](const std::string& text) {
            static const std::map<std::string, v1::Fault> kFaults = {
                {"abort", v1::FAULT_WORKER_ABORT},
                {"hang", v1::FAULT_WORKER_HANG},
                {"exit", v1::FAULT_WORKER_EXIT},
                {"illegal-address", v1::FAULT_ILLEGAL_ADDRESS}};
            const auto it = kFaults.find(text);
            if (it == kFaults.end())
              throw CLI::ValidationError(
                  "--fault", "must be abort, hang, exit or illegal-address, not '" + text + "'");
            flags.fault = it->second;
          },
          "Testing only: make the server's worker fail after the first sample "
          "(abort, hang, exit, illegal-address); refused unless the server runs "
          "with --enable-fault-injection")
      ->type_name("FAULT")
      ->group("Testing");
  AddKernelFlags(command, flags.kernels, /*kernel_option=*/true);
}

// The flags of `op`'s problem fields on `command`, each setting its field in
// `problem`, which is given each field's default first. A field without a
// default is a required flag; a bool field is a flag without a value, off
// unless given.
void AddProblemFlags(CLI::App& command, const proto::ops::Op& op,
                     google::protobuf::Message& problem) {
  for (const proto::ops::ProblemField& field : op.fields()) {
    const google::protobuf::FieldDescriptor* descriptor =
        problem.GetDescriptor()->FindFieldByName(field.field);
    if (descriptor == nullptr) {
      throw std::logic_error(std::string(op.name()) + " declares field " + field.field +
                             ", which its problem lacks");
    }
    if (descriptor->cpp_type() == google::protobuf::FieldDescriptor::CPPTYPE_BOOL) {
      command.add_flag_callback(
          field.flag,
          [&problem, &field] { OkOrThrow(SetProblemField(problem, field, "true"), field.flag); },
          field.help + " (default: off)");
      continue;
    }
    if (!field.default_value.empty()) {
      OkOrThrow(SetProblemField(problem, field, field.default_value), field.flag);
    }
    CLI::Option* option =
        command
            .add_option_function<std::string>(
                field.flag,
                [&problem, &field](const std::string& text) {
                  OkOrThrow(SetProblemField(problem, field, text), field.flag);
                },
                field.help +
                    (field.default_value.empty() ? "" : " (default: " + field.default_value + ")"))
            ->type_name(field.type_name);
    if (field.default_value.empty()) option->required();
  }
}

void ApplyRunFlags(const RunFlags& flags, v1::RunRequest& request) {
  request.set_dtype(flags.dtype);
  for (const std::string& variant : flags.variants) {
    request.add_variants(variant);
  }
  *request.mutable_timing() = flags.timing;
  request.set_seed(flags.seed);
  request.set_label(flags.label);
  request.set_fault(flags.fault);
  for (const std::string& file : flags.kernels.files)
    *request.add_kernels() = ValueOrThrow(ReadKernelFile(file, flags.kernels), "--kernel");
}

}  // namespace

std::variant<CommandLine, ExitCode> ParseCommandLine(int argc, const char* const* argv,
                                                     std::ostream& out, std::ostream& err) {
  CommandLine line;
  line.options.server = kDefaultServer;
  CLI::App app(
      "kbench: runs kernels on a kbench server (GPU or CPU), checks every "
      "output against a double-precision reference, and prints verified "
      "timings, throughput and speedups.",
      "kbench");
  app.fallthrough();  // Global options also after the subcommand.
  app.require_subcommand(1);
  app.get_formatter()->column_width(30);
  app.failure_message([](const CLI::App*, const CLI::Error& e) {
    return "kbench: " + std::string(e.what()) +
           "\nrun 'kbench --help' (or 'kbench SUBCOMMAND --help') for usage\n";
  });

  app.add_option("--server", line.options.server,
                 "Server address (default: $KBENCH_SERVER, else "
                 "localhost:50051)")
      ->type_name("HOST:PORT")
      ->envname("KBENCH_SERVER")
      ->check(CLI::Validator(
          [](std::string& address) {
            const absl::Status status = CheckServerAddress(address);
            return status.ok() ? std::string() : std::string(status.message());
          },
          "", "server address"));
  app.add_option_function<double>(
         "--timeout",
         [&line](double seconds) {
           line.options.timeout_s =
               ValueOrThrow(CheckAmount(seconds, /*positive=*/true), "--timeout");
         },
         "Deadline of the whole call in seconds, queueing included "
         "(default: 600)")
      ->type_name("SECONDS");
  bool json = false;
  bool csv = false;
  CLI::Option* json_flag =
      app.add_flag("--json", json, "Print one JSON object on stdout instead of a table");
  CLI::Option* csv_flag =
      app.add_flag("--csv", csv, "Print CSV (a header, one row per variant) instead");
  json_flag->excludes(csv_flag);
  bool no_header = false;
  app.add_flag("--no-header", no_header,
               "With --csv: no header line. kbench leaves it out by itself when stdout "
               "appends to a file that has content (kbench --csv ... >> runs.csv)")
      ->needs(csv_flag);
  app.add_flag("--quiet", line.options.quiet, "No progress on stderr");
  CLI::Option* tls_flag =
      app.add_flag("--tls", line.options.tls,
                   "Connect with TLS (the server runs with --tls-cert and --tls-key)");
  app.add_option("--ca", line.options.ca_file,
                 "PEM file of the CA that signed the server's certificate "
                 "(default: the system's roots)")
      ->type_name("FILE")
      ->needs(tls_flag);
  app.add_flag("--insecure-token", line.options.insecure_token,
               "Send the token without TLS to a server that is not on this "
               "machine (anyone on the network can read it)");

  // One run subcommand per op, each filling its own request; the flags
  // every op shares land in run_flags (only one subcommand is parsed).
  const std::vector<const proto::ops::Op*>& all_ops = proto::ops::AllOps();
  RunFlags run_flags;
  std::vector<v1::RunRequest> requests(all_ops.size());
  std::vector<CLI::App*> run_commands;
  std::string subcommand_names;
  for (size_t i = 0; i < all_ops.size(); ++i) {
    const proto::ops::Op& op = *all_ops[i];
    CLI::App* command = app.add_subcommand(SubcommandName(op), std::string(op.description()));
    AddProblemFlags(*command, op, *op.MutableProblem(requests[i]));
    AddRunFlags(*command, run_flags, VariantExample(op));
    command->footer("\nExamples:\n" + ExampleLines(op) + "\n" + kGlobalOptionsHelp + "\n" +
                    kExitCodesHelp);
    run_commands.push_back(command);
    subcommand_names += SubcommandName(op) + ", ";
  }

  CLI::App* info_command =
      app.add_subcommand("info",
                         "Show the server: version, backend, devices and their measured "
                         "ceilings, each op with its variants and their dtypes, limits, default "
                         "timing, load.");
  info_command->footer(std::string("\n") + kGlobalOptionsHelp);
  subcommand_names +=
      "info, runs, show, export, sweep, quota, login, invite, whoami, compile, assignment, "
      "submit, submissions, leaderboard, roster";
  HistoryCommandLine history(app);
  AuthCommandLine auth(app);
  SweepCommandLine sweep(app);
  QuotaCommandLine quota(app);
  CompileCommandLine compile(app);
  AssignmentCommandLine assignments(app);

  app.footer(TopFooter() + "\n" + kExitCodesHelp);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // CLI11 reports a word that names no subcommand as a missing one.
    if (e.get_name() == "RequiredError" && app.get_subcommands().empty()) {
      const std::vector<std::string> extras = app.remaining();
      err << "kbench: "
          << (extras.empty() ? "a subcommand is required"
                             : "unknown subcommand '" + extras.front() + "'")
          << "; the subcommands are " << subcommand_names << "\nrun 'kbench --help' for usage"
          << std::endl;
      return ExitCode::kBadArguments;
    }
    return app.exit(e, out, err) == 0 ? ExitCode::kOk : ExitCode::kBadArguments;
  }

  line.options.csv_header = !no_header;
  line.options.format = json  ? OutputFormat::kJson
                        : csv ? OutputFormat::kCsv
                              : OutputFormat::kTable;
  line.command = InfoCommand{};
  if (std::optional<HistoryCommand> command = history.Parsed()) {
    line.command = *std::move(command);
  }
  if (std::optional<AuthCommand> command = auth.Parsed()) {
    line.command = *std::move(command);
  }
  try {
    for (size_t i = 0; i < run_commands.size(); ++i) {
      if (!run_commands[i]->parsed()) continue;
      ApplyRunFlags(run_flags, requests[i]);
      line.command = std::move(requests[i]);
    }
    if (std::optional<CompileCommand> command = compile.Parsed()) {
      line.command = *std::move(command);
    }
    if (std::optional<SweepCommand> command = sweep.Parsed()) {
      line.command = *std::move(command);
    }
    if (std::optional<QuotaCommand> command = quota.Parsed()) {
      line.command = *std::move(command);
    }
    if (std::optional<AssignmentCommand> command = assignments.Parsed()) {
      line.command = *std::move(command);
    }
  } catch (const CLI::ParseError& e) {
    return app.exit(e, out, err) == 0 ? ExitCode::kOk : ExitCode::kBadArguments;
  }
  return line;
}

}  // namespace kbench::client
