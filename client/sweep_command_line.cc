#include "client/sweep_command_line.h"

#include <algorithm>

#include "client/flag_errors.h"
#include "client/flag_values.h"
#include "client/problem_fields.h"
#include "client/sweep_spec_file.h"
#include "client/timing_flags.h"
#include "proto/ops/registry.h"

namespace kbench::client {
namespace {

constexpr char kSweepHelp[] =
    "Run one op over a grid of problems: every combination of the values\n"
    "given for its fields and dtype, one run per point through the server's\n"
    "queue, each with the same variants. Results go to stdout or --out as\n"
    "each point ends (CSV, or JSON lines with --json); progress with an ETA\n"
    "and a closing summary go to stderr.";

constexpr char kSweepFooter[] =
    "\nAxes (on the op's subcommand; see kbench sweep OP --help):\n"
    "  a list         --seq 512,1024,4096     --dtype fp16,bf16\n"
    "  a range        --seq 2^9..2^14         (doubling: 512, 1024, ... "
    "16384)\n"
    "  both           --causal both           (false, then true)\n"
    "  Fields not given take their default, as for a run. The last field\n"
    "  varies fastest, then dtype. At most 10000 points.\n"
    "\n"
    "Output: CSV as 'kbench --csv' prints it, under one header (the\n"
    "default), or with --json one line per point as 'kbench --json' prints\n"
    "it. A point is written when it ends, so a file is complete up to the\n"
    "last point finished; a point that failed is not written (its error is\n"
    "in the summary), so --resume runs it again.\n"
    "\n"
    "Resuming: --resume FILE skips the points FILE already holds (same op,\n"
    "fields, dtype and variants) and appends the rest to it. Ctrl-C cancels\n"
    "the point in flight and stops; the file stays valid for --resume.\n"
    "\n"
    "Label: every run carries the sweep's label (--label, or the spec\n"
    "file's, else sweep-YYYYMMDD-HHMMSS), so the history and the dashboard\n"
    "group them. A resumed JSON file keeps its label; resuming a CSV file\n"
    "needs --label (CSV rows carry no label).\n"
    "\n"
    "Examples:\n"
    "  kbench sweep attention --seq 512,1024,2048,4096 --head-dim 64,128 \\\n"
    "      --dtype fp16,bf16 --causal both --variant naive,fused --out "
    "att.csv\n"
    "  kbench sweep attention --seq 2^9..2^14 --variant naive,fused "
    "--budget-ms 500\n"
    "  kbench sweep vector-add --n 2^20..2^28 --variant naive,vectorized "
    "--json\n"
    "  kbench sweep --spec docs/examples/attention_sweep.yaml --out att.csv\n"
    "  kbench sweep --spec docs/examples/attention_sweep.yaml "
    "--resume att.csv\n"
    "\n"
    "Spec files (YAML or JSON; docs/SWEEPS.md):\n"
    "  op: attention\n"
    "  axes: {seq: 2^9..2^12, head-dim: [64, 128], causal: both}\n"
    "  dtype: [fp16, bf16]\n"
    "  variant: [naive, fused]\n"
    "  timing: {budget-ms: 500}\n"
    "  label: lab3\n"
    "\n"
    "Exit codes:\n"
    "  0    every point ran and every variant passed verification\n"
    "  1    some point failed verification (its results are written)\n"
    "  2    bad arguments or spec file; nothing ran\n"
    "  3    some point failed otherwise: refused by the server, an error, or\n"
    "       the server became unreachable (the sweep stops there)\n"
    "  130  interrupted by Ctrl-C; the point in flight was cancelled\n";

std::string SubcommandName(const proto::ops::Op& op) {
  std::string name(op.name());
  std::replace(name.begin(), name.end(), '_', '-');
  return name;
}

void AddAxisFlags(CLI::App& command, const proto::ops::Op& op, SweepSpec& spec) {
  for (const proto::ops::ProblemField& field : op.fields()) {
    const std::string help =
        IsBoolField(field)
            ? field.help + ": true, false or both (default: false)"
            : field.help + ": values, e.g. 512,1024 or 2^9..2^14" +
                  (field.default_value.empty() ? " (required)"
                                               : " (default: " + field.default_value + ")");
    command
        .add_option_function<std::string>(
            field.flag,
            [&spec, &field](const std::string& text) {
              spec.axes.push_back({&field, ValueOrThrow(AxisValues(field, text), field.flag)});
            },
            help)
        ->type_name(IsBoolField(field) ? "true|false|both" : "LIST");
  }
  command
      .add_option_function<std::string>(
          "--dtype",
          [&spec](const std::string& text) {
            spec.dtypes = ValueOrThrow(DTypeValues(text), "--dtype");
          },
          "Element types, comma-separated: " + DTypeChoices() + " (default: fp32)")
      ->type_name("LIST");
  std::string variants;
  for (const proto::ops::VariantSpec& variant : op.variants()) {
    variants += (variants.empty() ? "" : ",") + variant.name;
  }
  command
      .add_option_function<std::string>(
          "--variant",
          [&spec](const std::string& text) {
            spec.variants = ValueOrThrow(SplitVariantList(text), "--variant");
          },
          "Variants every point runs, e.g. " + variants +
              "; the first is the baseline (default: every variant the "
              "server offers)")
      ->type_name("LIST");
  AddTimingFlags(command, spec.timing);
  command
      .add_option("--seed", spec.seed,
                  "Seed of the inputs of every point (default: the server "
                  "picks one per run)")
      ->type_name("N");
}

}  // namespace

SweepCommandLine::SweepCommandLine(CLI::App& app) {
  sweep_ = app.add_subcommand("sweep", kSweepHelp);
  sweep_->fallthrough();
  sweep_->require_subcommand(0, 1);
  sweep_->footer(kSweepFooter);
  sweep_
      ->add_option("--spec", spec_path_,
                   "Read the sweep from a YAML or JSON file instead of an "
                   "op and its flags (docs/SWEEPS.md)")
      ->type_name("FILE");
  sweep_
      ->add_option("--label", label_,
                   "Label of every run of the sweep (default: the spec "
                   "file's, else sweep-YYYYMMDD-HHMMSS)")
      ->type_name("TEXT");
  sweep_
      ->add_option("--out", out_path_,
                   "Write the results to FILE, which must not exist "
                   "(default: stdout)")
      ->type_name("FILE");
  sweep_
      ->add_option("--resume", resume_path_,
                   "Skip the points FILE already holds and append the "
                   "others to it (created if missing)")
      ->type_name("FILE");
  for (const proto::ops::Op* op : proto::ops::AllOps()) {
    specs_.push_back(std::make_unique<SweepSpec>());
    specs_.back()->op = op;
    CLI::App* command =
        sweep_->add_subcommand(SubcommandName(*op), "Sweep " + std::string(op->name()) + ": " +
                                                        std::string(op->description()));
    command->fallthrough();
    AddAxisFlags(*command, *op, *specs_.back());
    command->footer(
        "\nSweep options (--label, --out, --resume) and the output, resume "
        "and exit codes: kbench sweep --help\n");
    op_commands_.push_back(command);
  }
}

std::optional<SweepCommand> SweepCommandLine::Parsed() const {
  if (!sweep_->parsed()) return std::nullopt;
  const SweepSpec* from_flags = nullptr;
  for (size_t i = 0; i < op_commands_.size(); ++i) {
    if (op_commands_[i]->parsed()) from_flags = specs_[i].get();
  }
  if ((from_flags == nullptr) == spec_path_.empty()) {
    throw CLI::ValidationError(
        "sweep", from_flags == nullptr ? "give an op and its axes (kbench sweep attention --seq "
                                         "512,1024) or --spec FILE"
                                       : "give either an op with its axes or --spec FILE, not "
                                         "both");
  }
  if (!resume_path_.empty() && !out_path_.empty() && resume_path_ != out_path_) {
    throw CLI::ValidationError("--resume",
                               "appends to its own file; leave out --out (or give the "
                               "same file)");
  }
  const SweepSpec spec =
      from_flags != nullptr ? *from_flags : ValueOrThrow(LoadSweepSpec(spec_path_), "--spec");
  SweepCommand command;
  command.points = ValueOrThrow(ExpandSweep(spec), "sweep");
  command.label = label_.empty() ? spec.label : label_;
  command.out_path = out_path_;
  command.resume_path = resume_path_;
  return command;
}

}  // namespace kbench::client
