#include "client/sweep_spec_file.h"

#include <yaml-cpp/yaml.h>

#include <fstream>
#include <sstream>

#include "client/flag_values.h"
#include "client/timing_flags.h"
#include "kernels/common/status_macros.h"
#include "proto/ops/registry.h"

namespace kbench::client {
namespace {

constexpr char kTopKeys[] = "op, axes, dtype, variant, timing, seed, label";

// Errors of one file: "FILE: KEY (line L): message".
class SpecErrors {
 public:
  explicit SpecErrors(const std::string& name) : name_(name) {}

  absl::Status At(const std::string& key, const YAML::Node& node, std::string_view message) const {
    std::string text = name_ + ": " + key;
    if (!node.Mark().is_null()) {
      text += " (line " + std::to_string(node.Mark().line + 1) + ")";
    }
    return absl::InvalidArgumentError(text + ": " + std::string(message));
  }

  absl::Status File(std::string_view message) const {
    return absl::InvalidArgumentError(name_ + ": " + std::string(message));
  }

 private:
  const std::string& name_;
};

// A scalar's text, or a sequence of scalars joined by commas (so that
// [64, 128] reads as "64,128"); an error for a map or a nested list.
absl::StatusOr<std::string> ListText(const YAML::Node& node, const std::string& key,
                                     const SpecErrors& errors) {
  if (node.IsScalar()) return node.Scalar();
  if (!node.IsSequence() || node.size() == 0) {
    return errors.At(key, node, "must be a value or a non-empty list of values");
  }
  std::string text;
  for (const YAML::Node& item : node) {
    if (!item.IsScalar()) {
      return errors.At(key, item, "must be a list of plain values");
    }
    text += (text.empty() ? "" : ",") + item.Scalar();
  }
  return text;
}

absl::StatusOr<std::string> ScalarText(const YAML::Node& node, const std::string& key,
                                       const SpecErrors& errors) {
  if (!node.IsScalar()) return errors.At(key, node, "must be a single value");
  return node.Scalar();
}

// The message of a status, for an error that adds its own place.
std::string Message(const absl::Status& status) { return std::string(status.message()); }

absl::Status ReadAxes(const YAML::Node& axes, SweepSpec& spec, const SpecErrors& errors) {
  if (!axes.IsMap()) {
    return errors.At("axes", axes, "must map fields to values, e.g. seq: 512");
  }
  std::string names;
  for (const proto::ops::ProblemField& field : spec.op->fields()) {
    names += (names.empty() ? "" : ", ") + field.flag.substr(2);
  }
  for (const auto& entry : axes) {
    const std::string name = entry.first.Scalar();
    const std::string key = "axes." + name;
    const proto::ops::ProblemField* field = nullptr;
    for (const proto::ops::ProblemField& f : spec.op->fields()) {
      if (f.flag == "--" + name) field = &f;
    }
    if (field == nullptr) {
      return errors.At(
          key, entry.first,
          "is not a field of " + std::string(spec.op->name()) + "; its fields are " + names);
    }
    KBENCH_ASSIGN_OR_RETURN(const std::string text, ListText(entry.second, key, errors));
    absl::StatusOr<std::vector<std::string>> values = AxisValues(*field, text);
    if (!values.ok()) return errors.At(key, entry.second, Message(values.status()));
    spec.axes.push_back({field, *std::move(values)});
  }
  return absl::OkStatus();
}

absl::Status ReadTiming(const YAML::Node& timing, SweepSpec& spec, const SpecErrors& errors) {
  if (!timing.IsMap()) {
    return errors.At("timing", timing, "must map timing options to values, e.g. budget-ms: 200");
  }
  std::string names;
  for (const TimingFlag& flag : TimingFlags()) {
    names += (names.empty() ? "" : ", ") + flag.name.substr(2);
  }
  for (const auto& entry : timing) {
    const std::string name = entry.first.Scalar();
    const std::string key = "timing." + name;
    const TimingFlag* flag = FindTimingFlag("--" + name);
    if (flag == nullptr) {
      return errors.At(key, entry.first, "is not a timing option; they are " + names);
    }
    KBENCH_ASSIGN_OR_RETURN(const std::string text, ScalarText(entry.second, key, errors));
    if (absl::Status status = flag->set(spec.timing, text); !status.ok()) {
      return errors.At(key, entry.second, Message(status));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<SweepSpec> ReadSpec(const YAML::Node& root, const SpecErrors& errors) {
  if (!root.IsMap()) {
    return errors.File("must be a map of keys (" + std::string(kTopKeys) + "); see docs/SWEEPS.md");
  }
  SweepSpec spec;
  const YAML::Node op = root["op"];
  if (!op) return errors.File("op: missing; name the op, e.g. op: attention");
  if (!op.IsScalar() || (spec.op = proto::ops::FindOp(op.Scalar())) == nullptr) {
    std::string names;
    for (const proto::ops::Op* known : proto::ops::AllOps()) {
      names += (names.empty() ? "" : ", ") + std::string(known->name());
    }
    return errors.At("op", op, "names no op; the ops are " + names);
  }
  for (const auto& entry : root) {
    const std::string key = entry.first.Scalar();
    const YAML::Node& value = entry.second;
    if (key == "op") continue;
    if (key == "axes") {
      KBENCH_RETURN_IF_ERROR(ReadAxes(value, spec, errors));
    } else if (key == "timing") {
      KBENCH_RETURN_IF_ERROR(ReadTiming(value, spec, errors));
    } else if (key == "dtype") {
      KBENCH_ASSIGN_OR_RETURN(const std::string text, ListText(value, key, errors));
      absl::StatusOr<std::vector<v1::DType>> dtypes = DTypeValues(text);
      if (!dtypes.ok()) return errors.At(key, value, Message(dtypes.status()));
      spec.dtypes = *std::move(dtypes);
    } else if (key == "variant") {
      KBENCH_ASSIGN_OR_RETURN(const std::string text, ListText(value, key, errors));
      absl::StatusOr<std::vector<std::string>> names = SplitVariantList(text);
      if (!names.ok()) return errors.At(key, value, Message(names.status()));
      spec.variants = *std::move(names);
    } else if (key == "seed") {
      KBENCH_ASSIGN_OR_RETURN(const std::string text, ScalarText(value, key, errors));
      absl::StatusOr<uint64_t> seed = ParseCount(text);
      if (!seed.ok()) return errors.At(key, value, Message(seed.status()));
      spec.seed = *seed;
    } else if (key == "label") {
      KBENCH_ASSIGN_OR_RETURN(const std::string text, ScalarText(value, key, errors));
      spec.label = text;
    } else {
      return errors.At(key, entry.first,
                       "is not a key of a sweep spec; the keys are " + std::string(kTopKeys));
    }
  }
  return spec;
}

}  // namespace

absl::StatusOr<SweepSpec> ParseSweepSpec(const std::string& text, const std::string& name) {
  const SpecErrors errors(name);
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    return errors.File("line " + std::to_string(e.mark.line + 1) + ", column " +
                       std::to_string(e.mark.column + 1) + ": not valid YAML or JSON: " + e.msg);
  }
  return ReadSpec(root, errors);
}

absl::StatusOr<SweepSpec> LoadSweepSpec(const std::string& path) {
  std::ifstream file(path);
  if (!file) {
    return absl::NotFoundError("cannot read the sweep spec " + path);
  }
  std::ostringstream text;
  text << file.rdbuf();
  return ParseSweepSpec(text.str(), path);
}

}  // namespace kbench::client
