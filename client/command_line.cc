#include "command_line.h"

#include <CLI/CLI.hpp>
#include <cmath>
#include <vector>

#include "flag_values.h"

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

constexpr char kTopFooter[] =
    "\nEnvironment:\n"
    "  KBENCH_SERVER  server address (HOST:PORT) used when --server is not\n"
    "                 given; without either, localhost:50051\n"
    "\n"
    "Output: progress on stderr (unless --quiet); results on stdout as a\n"
    "table, or one JSON object (--json), or CSV with a header (--csv).\n"
    "\n"
    "Examples:\n"
    "  kbench info\n"
    "  kbench vector-add --n 2^28 --variant naive,vectorized\n"
    "  kbench attention --seq 4096 --variant naive,fused --causal\n"
    "  kbench --csv attention --seq 1024 --heads 16 --dtype bf16 >> runs.csv\n"
    "  KBENCH_SERVER=gpu1:50051 kbench vector-add --n 16Mi --json\n"
    "\n"
    "Run 'kbench SUBCOMMAND --help' for the options of each subcommand.\n";

// Flags both run subcommands share; copied into the request after parsing.
struct RunFlags {
  std::vector<std::string> variants;
  v1::DType dtype = v1::DTYPE_UNSPECIFIED;
  v1::TimingOptions timing;
  uint64_t seed = 0;
  std::string label;
};

// Throws the CLI11 error that names `flag`, so parse errors all print alike.
template <typename T>
T ValueOrThrow(absl::StatusOr<T> value, const std::string& flag) {
  if (!value.ok()) {
    throw CLI::ValidationError(flag, std::string(value.status().message()));
  }
  return *std::move(value);
}

// `value` if it is at least 0 (above 0 if `positive`); else throws the
// CLI11 error that names `flag`.
double CheckedAmount(double value, const std::string& flag, bool positive) {
  if (std::isnan(value) || value < 0 || (positive && value == 0)) {
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
      ->group("Timing (unset or 0: the server's default, see kbench info)");
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
          "Element type: fp32, fp16 or bf16 (default: fp32)")
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
  command
      .add_option("--seed", flags.seed,
                  "Seed of the inputs; the same seed gives the same inputs "
                  "(default: 0, the server picks one and reports it)")
      ->type_name("N");
  command
      .add_option("--label", flags.label,
                  "Free text stored with the run, e.g. an assignment")
      ->type_name("TEXT");
}

template <typename Request>
void ApplyRunFlags(const RunFlags& flags, Request& request) {
  request.set_dtype(flags.dtype);
  for (const std::string& variant : flags.variants) {
    request.add_variants(variant);
  }
  *request.mutable_timing() = flags.timing;
  request.set_seed(flags.seed);
  request.set_label(flags.label);
}

}  // namespace

std::variant<CommandLine, ExitCode> ParseCommandLine(int argc,
                                                     const char* const* argv,
                                                     std::ostream& out,
                                                     std::ostream& err) {
  CommandLine line;
  line.options.server = kDefaultServer;
  CLI::App app(
      "kbench: runs vector add and attention kernels on a kbench server (GPU "
      "or CPU), checks every output against a double-precision reference, "
      "and prints verified timings, throughput and speedups.",
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
      ->envname("KBENCH_SERVER");
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

  RunFlags run_flags;
  v1::VectorAddRequest vector_add;
  CLI::App* vector_add_command = app.add_subcommand(
      "vector-add",
      "Time c = a + b over n elements; reports GB/s (bytes = 3 * n * "
      "sizeof(dtype)) and the fraction of the device's copy bandwidth.");
  vector_add_command
      ->add_option_function<std::string>(
          "--n",
          [&vector_add](const std::string& text) {
            vector_add.set_n(ValueOrThrow(ParseCount(text), "--n"));
          },
          "Number of elements (required): 1000, 2^28, 1M (= 1Mi = 2^20), "
          "16Mi, 1G")
      ->type_name("COUNT")
      ->required();
  AddRunFlags(*vector_add_command, run_flags, "naive,vectorized");
  vector_add_command->footer(
      std::string("\nExamples:\n"
                  "  kbench vector-add --n 2^28\n"
                  "  kbench vector-add --n 1000 --variant naive,vectorized "
                  "--budget-ms 200 --csv\n\n") +
      kGlobalOptionsHelp + "\n" + kExitCodesHelp);

  v1::AttentionRequest attention;
  attention.set_batch(1);
  attention.set_heads(8);
  attention.set_head_dim(64);
  CLI::App* attention_command = app.add_subcommand(
      "attention",
      "Time O = softmax(Q K^T / sqrt(head_dim) [+ causal mask]) V; reports "
      "TFLOP/s (4 * batch * heads * seq^2 * head_dim, halved for causal).");
  auto shape = [&](const char* name,
                   void (v1::AttentionRequest::*set)(uint32_t),
                   const std::string& help) {
    return attention_command->add_option_function<uint32_t>(
        name, [&attention, set](uint32_t v) { (attention.*set)(v); }, help);
  };
  shape("--batch", &v1::AttentionRequest::set_batch, "Batch size (default: 1)")
      ->type_name("N");
  shape("--heads", &v1::AttentionRequest::set_heads, "Heads (default: 8)")
      ->type_name("N");
  shape("--seq", &v1::AttentionRequest::set_seq_len,
        "Sequence length N, in tokens (required)")
      ->type_name("N")
      ->required();
  shape("--head-dim", &v1::AttentionRequest::set_head_dim,
        "Head dimension d (default: 64)")
      ->type_name("D");
  attention_command->add_flag_callback(
      "--causal", [&attention] { attention.set_causal(true); },
      "Query i attends to keys 0..i only (default: off)");
  AddRunFlags(*attention_command, run_flags, "naive,fused");
  attention_command->footer(
      std::string("\nExamples:\n"
                  "  kbench attention --seq 4096 --variant naive,fused\n"
                  "  kbench attention --batch 4 --heads 16 --seq 2048 "
                  "--head-dim 128 --causal --dtype bf16\n\n") +
      kGlobalOptionsHelp + "\n" + kExitCodesHelp);

  CLI::App* info_command = app.add_subcommand(
      "info",
      "Show the server: version, backend, devices and their measured "
      "ceilings, variants and dtypes per op, limits, default timing, load.");
  info_command->footer(std::string("\n") + kGlobalOptionsHelp);

  app.footer(std::string(kTopFooter) + "\n" + kExitCodesHelp);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e, out, err) == 0 ? ExitCode::kOk : ExitCode::kBadArguments;
  }

  line.options.format = json  ? OutputFormat::kJson
                        : csv ? OutputFormat::kCsv
                              : OutputFormat::kTable;
  if (vector_add_command->parsed()) {
    ApplyRunFlags(run_flags, vector_add);
    line.command = vector_add;
  } else if (attention_command->parsed()) {
    ApplyRunFlags(run_flags, attention);
    line.command = attention;
  } else {
    line.command = InfoCommand{};
  }
  return line;
}

}  // namespace kbench::client
