// An op is a unit: this interface is everything kbench knows about one kind
// of problem (vector add, attention, ...), declared in one file per op
// (<op>/<op>_op.cc, e.g. attention/attention_op.cc) and listed once in
// registry.cc. The service, admission, the runner and the client's table,
// CSV and JSON writers loop over the registry; none of them names an op.
//
// What an op declares:
//   - its problem: the RunRequest oneof case and the fields of its problem
//     message as the CLI and the reports show them (ProblemField);
//   - its limits: the v1::Limits fields it checks, their defaults from the
//     device's capabilities, and the admission checks of a problem;
//   - its work: bytes moved or FLOPs, with the formula in words, and the
//     device ceiling it is judged against;
//   - its verification: the reference, the tolerance and the method;
//   - its variants, and per backend which dtypes (and head dims) each runs.
// A backend implements the variants of an op as one Workload (server/
// device.h), told which variants to run by id (VariantSpec::id), never by a
// name to re-parse.
//
// Ops are immutable singletons: every method may be called from any thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "kbench/v1/kbench.pb.h"
#include "kernels/dtype.h"
#include "proto/ops/device_output.h"

namespace kbench::proto::ops {

struct KernelAbi;  // kernel_abi.h

// One field of an op's problem message, as the CLI offers it and the
// reports print it. The value lives in the problem message; `field` is its
// proto name.
struct ProblemField {
  std::string field;      // proto field name, e.g. "seq_len"
  std::string flag;       // CLI flag, e.g. "--seq"
  std::string type_name;  // CLI value name, e.g. "N"; empty for a bool
  std::string help;       // one line for --help
  // What the CLI sends when the flag is absent; empty: the flag is required
  // (bool fields default to false).
  std::string default_value;
};

// What one backend runs of one variant.
struct VariantSupport {
  std::string backend;  // kCpuBackend or kCudaBackend (backends.h)
  std::vector<kernels::DType> dtypes;
  // Attention only: head dims this variant runs; empty means any up to
  // Limits.max_head_dim.
  std::vector<uint32_t> head_dims;
};

struct VariantSpec {
  std::string name;     // as the API names it, e.g. "fused"
  std::string summary;  // one line: what it does
  std::vector<VariantSupport> support;
  int id = 0;  // index in Op::variants(); what a Workload is told

  // The support of `backend`, or nullptr when it does not run this variant.
  const VariantSupport* On(std::string_view backend) const;
};

// An op's variant table (Op::variants()) from entries keyed by the op's
// variant enum, whose values are 0, 1, ... in the order the API lists the
// variants: each entry lands at the position its enum value names and its
// id is set to that position, so the enum constant a backend runs a variant
// by is its row by construction. Every value from 0 to entries.size() - 1
// has one entry (ops_test checks every op's table).
template <typename VariantEnum>
std::vector<VariantSpec> VariantTable(std::vector<std::pair<VariantEnum, VariantSpec>> entries) {
  std::vector<VariantSpec> table(entries.size());
  for (auto& [id, spec] : entries) {
    spec.id = int(id);
    table.at(size_t(id)) = std::move(spec);
  }
  return table;
}

// The work of one run of a problem, for throughput.
struct Work {
  enum class Unit { kBytes, kFlops };
  Unit unit = Unit::kBytes;
  double amount = 0;    // bytes moved or FLOPs of one run
  std::string formula;  // in words, e.g. "bytes = 3 * n * 4 (read a, read b, write c)"
};

// Checks one output of a problem. Made once per run (it caches its host
// references) and used by the runner's thread only.
class Verifier {
 public:
  virtual ~Verifier() = default;
  // Checks the output of the workload's last run: every element against the
  // device reference (DeviceOutput::CompareWithReference), and sampled rows
  // or elements of the output and of the device reference against the
  // double-precision host reference, with the op's tolerances
  // (kernels/<op>/tolerances.h). A failed check is a Verification with passed =
  // false; an error is the device's.
  virtual absl::StatusOr<v1::Verification> Check(DeviceOutput& output) = 0;
};

class Op {
 public:
  virtual ~Op() = default;

  // As the API names it: "vector_add". The CLI's subcommand is the name
  // with '-' for '_'.
  virtual std::string_view name() const = 0;
  // One line for --help and `kbench info`.
  virtual std::string_view description() const = 0;
  virtual v1::RunRequest::ProblemCase problem_case() const = 0;
  // The problem message of this op inside `request` (mutable: for the CLI).
  virtual const google::protobuf::Message& Problem(const v1::RunRequest& request) const = 0;
  virtual google::protobuf::Message* MutableProblem(v1::RunRequest& request) const = 0;
  virtual const std::vector<ProblemField>& fields() const = 0;
  // Command lines for the CLI's --help, e.g. "kbench attention --seq 4096".
  virtual const std::vector<std::string>& examples() const = 0;
  virtual const std::vector<VariantSpec>& variants() const = 0;

  // Sets this op's fields of `limits` (e.g. max_seq_len) to their defaults
  // for `device`, from its capabilities (memory, whether it is a GPU).
  virtual void SetDefaultLimits(const v1::DeviceInfo& device, v1::Limits& limits) const = 0;
  // One line of help for each of this op's fields of v1::Limits, for the
  // operator's --max-* flags: {field name, help}.
  virtual std::vector<std::pair<std::string, std::string>> LimitHelp() const = 0;
  // Admission checks of the problem alone: ranges, sizes and memory against
  // `limits`. INVALID_ARGUMENT naming the field, the limit and the value.
  virtual absl::Status CheckProblem(const v1::RunRequest& request,
                                    const v1::Limits& limits) const = 0;
  // Checks of the problem against the chosen variants on a backend, beyond
  // dtype (which admission checks for every op): e.g. head_dim for
  // attention, the score matrix of naive. OK by default.
  virtual absl::Status CheckVariants(const v1::RunRequest& request,
                                     const std::vector<const VariantSpec*>& variants,
                                     std::string_view backend, const v1::Limits& limits) const;

  // The work of one run.
  virtual Work WorkOf(const v1::RunRequest& request, kernels::DType dtype) const = 0;
  // The verifier of one run's outputs (request has its seed).
  // The ABI of a learner's kernel for this op (kernel_abi.h), or nullptr
  // when the op takes none.
  virtual const KernelAbi* kernel_abi() const { return nullptr; }
  virtual std::unique_ptr<Verifier> MakeVerifier(const v1::RunRequest& request,
                                                 kernels::DType dtype) const = 0;
  // A short description of the problem for logs, progress, reports and the
  // dashboard: the op's name and DescribeProblem, e.g. "attention batch=1
  // heads=8 seq_len=4096 head_dim=64 causal".
  std::string Describe(const v1::RunRequest& request) const;
  // The problem's fields alone, field=value, a true bool by its name and a
  // false one left out: "batch=1 heads=8 seq_len=4096 head_dim=64 causal".
  std::string DescribeProblem(const v1::RunRequest& request) const;
  // The value of one problem field as text: "4096", "true".
  std::string FieldText(const v1::RunRequest& request, const ProblemField& field) const;

  // The variant named `name`, or nullptr.
  const VariantSpec* FindVariant(std::string_view name) const;
};

}  // namespace kbench::proto::ops
