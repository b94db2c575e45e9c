#include "command_line.h"

#include <CLI/CLI.hpp>
#include <map>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "flag_values.h"
#include "server/ops/registry.h"

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
    "  130  interrupted by Ctrl-C; the run was cancelled on the server\n";

constexpr char kGlobalOptionsHelp[] =
    "Global options (before or after the subcommand; see kbench --help):\n"
    "  --server HOST:PORT, --timeout SECONDS, --json | --csv, --quiet\n";

constexpr char kEnvironmentHelp[] =
    "\nEnvironment:\n"
    "  KBENCH_SERVER  server address (HOST:PORT) used when --server is not\n"
    "                 given; without either, localhost:50051\n"
    "\n"
    "Output: progress on stderr (unless --quiet); results on stdout as a\n"
    "table, or one JSON object (--json), or CSV with a header (--csv).\n";

constexpr char kTimingGroup[] =
    "Timing (unset or 0: the server's default, see kbench info)";

// The run subcommand of `op`: its name with '-' for '_'.
std::string SubcommandName(const ops::Op& op) {
  std::string name(op.name());
  std::replace(name.begin(), name.end(), '_', '-');
  return name;
}

// "naive,fused": the op's variant names, for the help of --variant.
std::string VariantExample(const ops::Op& op) {
  std::string text;
  for (const ops::VariantSpec& variant : op.variants()) {
    text += (text.empty() ? "" : ",") + variant.name;
  }
  return text;
}

std::string ExampleLines(const ops::Op& op) {
  std::string text;
  for (const std::string& example : op.examples())
    text += "  " + example + "\n";
  return text;
}

std::string TopFooter() {
  std::string text =
      std::string(kEnvironmentHelp) + "\nExamples:\n  kbench info\n";
  for (const ops::Op* op : ops::AllOps()) text += ExampleLines(*op);
  return text +
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
};

// Throws the CLI11 error that names `flag`, so parse errors all print alike.
template <typename T>
T ValueOrThrow(absl::StatusOr<T> value, const std::string& flag) {
  if (!value.ok()) {
    throw CLI::ValidationError(flag, std::string(value.status().message()));
  }
  return *std::move(value);
}

// `value` if it is a finite number of at least 0 (above 0 if `positive`);
// else throws the CLI11 error that names `flag`.
double CheckedAmount(double value, const std::string& flag, bool positive) {
  if (!std::isfinite(value)) {
    throw CLI::ValidationError(
        flag, "must be a finite number, got " + std::to_string(value));
  }
  if (value < 0 || (positive && value == 0)) {
    throw CLI::ValidationError(
        flag, positive ? "must be more than 0" : "must be 0 or more");
  }
  return value;
}

// A flag of the timing group that passes its value to `set`.
template <typename Value>
CLI::Option* AddTimingFlag(CLI::App& command, const std::string& name,
                           std::function<void(const Value&)> set,
                           const std::string& help) {
  return command.add_option_function<Value>(name, std::move(set), help)
      ->group(kTimingGroup);
}

void AddRunFlags(CLI::App& command, RunFlags& flags,
                 const std::string& variant_example) {
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
  v1::TimingOptions& t = flags.timing;
  AddTimingFlag<uint32_t>(
      command, "--warmup", [&t](uint32_t v) { t.set_warmup_runs(v); },
      "Untimed runs of each variant before sampling")
      ->type_name("N");
  AddTimingFlag<uint32_t>(
      command, "--min-samples", [&t](uint32_t v) { t.set_min_samples(v); },
      "Samples each variant takes at least")
      ->type_name("N");
  AddTimingFlag<double>(
      command, "--min-time-ms",
      [&t](double v) {
        t.set_min_time_ms(
            CheckedAmount(v, "--min-time-ms", /*positive=*/false));
      },
      "Milliseconds of sampling at least (all variants together)")
      ->type_name("MS");
  AddTimingFlag<double>(
      command, "--target-rse",
      [&t](double v) {
        t.set_target_rse(CheckedAmount(v, "--target-rse", /*positive=*/false));
      },
      "Stop once each variant's relative standard error of the mean is "
      "under this fraction, e.g. 0.005 for 0.5%")
      ->type_name("FRACTION");
  AddTimingFlag<double>(
      command, "--budget-ms",
      [&t](double v) {
        t.set_time_budget_ms(
            CheckedAmount(v, "--budget-ms", /*positive=*/false));
      },
      "...or once sampling took this many milliseconds")
      ->type_name("MS");
  AddTimingFlag<uint32_t>(
      command, "--max-samples", [&t](uint32_t v) { t.set_max_samples(v); },
      "...or once each variant has this many samples")
      ->type_name("N");
  AddTimingFlag<std::string>(
      command, "--mode",
      [&t](const std::string& text) {
        t.set_mode(ValueOrThrow(ParseTimingMode(text), "--mode"));
      },
      "cold: caches flushed before each sample; hot: back-to-back "
      "launches, for launch-bound sizes (default: cold)")
      ->type_name("cold|hot");
  AddTimingFlag<double>(
      command, "--min-effect",
      [&t](double v) {
        t.set_min_effect(CheckedAmount(v, "--min-effect", /*positive=*/false));
      },
      "A speedup is judged faster or slower only when it is at least this "
      "fraction away from 1, e.g. 0.02 for 2%")
      ->type_name("FRACTION");
  command
      .add_option("--seed", flags.seed,
                  "Seed of the inputs; the same seed gives the same inputs "
                  "(default: 0, the server picks one and reports it)")
      ->type_name("N");
  command
      .add_option("--label", flags.label,
                  "Free text stored with the run, e.g. an assignment")
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
}

// Sets `problem`'s field `field` from the flag's text: a count (ParseCount:
// 4096, 2^12, 4Ki) for an unsigned field, "true" for a bool.
void SetProblemField(google::protobuf::Message& problem,
                     const ops::ProblemField& field, const std::string& text) {
  using google::protobuf::FieldDescriptor;
  const FieldDescriptor* f =
      problem.GetDescriptor()->FindFieldByName(field.field);
  const google::protobuf::Reflection* reflection = problem.GetReflection();
  switch (f->cpp_type()) {
    case FieldDescriptor::CPPTYPE_BOOL:
      reflection->SetBool(&problem, f, text == "true");
      return;
    case FieldDescriptor::CPPTYPE_UINT64:
      reflection->SetUInt64(&problem, f,
                            ValueOrThrow(ParseCount(text), field.flag));
      return;
    case FieldDescriptor::CPPTYPE_UINT32: {
      const uint64_t value = ValueOrThrow(ParseCount(text), field.flag);
      if (value > std::numeric_limits<uint32_t>::max()) {
        throw CLI::ValidationError(
            field.flag,
            "'" + text + "' is too large; the most is " +
                std::to_string(std::numeric_limits<uint32_t>::max()));
      }
      reflection->SetUInt32(&problem, f, static_cast<uint32_t>(value));
      return;
    }
    default:
      throw std::logic_error("problem field " + field.field +
                             " has a type the CLI cannot set");
  }
}

// The flags of `op`'s problem fields on `command`, each setting its field in
// `problem`, which is given each field's default first. A field without a
// default is a required flag; a bool field is a flag without a value, off
// unless given.
void AddProblemFlags(CLI::App& command, const ops::Op& op,
                     google::protobuf::Message& problem) {
  for (const ops::ProblemField& field : op.fields()) {
    const google::protobuf::FieldDescriptor* descriptor =
        problem.GetDescriptor()->FindFieldByName(field.field);
    if (descriptor == nullptr) {
      throw std::logic_error(std::string(op.name()) + " declares field " +
                             field.field + ", which its problem lacks");
    }
    if (descriptor->cpp_type() ==
        google::protobuf::FieldDescriptor::CPPTYPE_BOOL) {
      command.add_flag_callback(
          field.flag,
          [&problem, &field] { SetProblemField(problem, field, "true"); },
          field.help + " (default: off)");
      continue;
    }
    if (!field.default_value.empty()) {
      SetProblemField(problem, field, field.default_value);
    }
    CLI::Option* option =
        command
            .add_option_function<std::string>(
                field.flag,
                [&problem, &field](const std::string& text) {
                  SetProblemField(problem, field, text);
                },
                field.help + (field.default_value.empty()
                                  ? ""
                                  : " (default: " + field.default_value + ")"))
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
}

}  // namespace

std::variant<CommandLine, ExitCode> ParseCommandLine(int argc,
                                                     const char* const* argv,
                                                     std::ostream& out,
                                                     std::ostream& err) {
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
               CheckedAmount(seconds, "--timeout", /*positive=*/true);
         },
         "Deadline of the whole call in seconds, queueing included "
         "(default: 600)")
      ->type_name("SECONDS");
  bool json = false;
  bool csv = false;
  CLI::Option* json_flag = app.add_flag(
      "--json", json, "Print one JSON object on stdout instead of a table");
  CLI::Option* csv_flag = app.add_flag(
      "--csv", csv, "Print CSV (a header, one row per variant) instead");
  json_flag->excludes(csv_flag);
  app.add_flag("--quiet", line.options.quiet, "No progress on stderr");

  // One run subcommand per op, each filling its own request; the flags
  // every op shares land in run_flags (only one subcommand is parsed).
  const std::vector<const ops::Op*>& all_ops = ops::AllOps();
  RunFlags run_flags;
  std::vector<v1::RunRequest> requests(all_ops.size());
  std::vector<CLI::App*> run_commands;
  std::string subcommand_names;
  for (size_t i = 0; i < all_ops.size(); ++i) {
    const ops::Op& op = *all_ops[i];
    CLI::App* command =
        app.add_subcommand(SubcommandName(op), std::string(op.description()));
    AddProblemFlags(*command, op, *op.MutableProblem(requests[i]));
    AddRunFlags(*command, run_flags, VariantExample(op));
    command->footer("\nExamples:\n" + ExampleLines(op) + "\n" +
                    kGlobalOptionsHelp + "\n" + kExitCodesHelp);
    run_commands.push_back(command);
    subcommand_names += SubcommandName(op) + ", ";
  }

  CLI::App* info_command = app.add_subcommand(
      "info",
      "Show the server: version, backend, devices and their measured "
      "ceilings, each op with its variants and their dtypes, limits, default "
      "timing, load.");
  info_command->footer(std::string("\n") + kGlobalOptionsHelp);
  subcommand_names += "info";

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
          << "; the subcommands are " << subcommand_names
          << "\nrun 'kbench --help' for usage" << std::endl;
      return ExitCode::kBadArguments;
    }
    return app.exit(e, out, err) == 0 ? ExitCode::kOk : ExitCode::kBadArguments;
  }

  line.options.format = json  ? OutputFormat::kJson
                        : csv ? OutputFormat::kCsv
                              : OutputFormat::kTable;
  line.command = InfoCommand{};
  for (size_t i = 0; i < run_commands.size(); ++i) {
    if (!run_commands[i]->parsed()) continue;
    ApplyRunFlags(run_flags, requests[i]);
    line.command = std::move(requests[i]);
  }
  return line;
}

}  // namespace kbench::client
