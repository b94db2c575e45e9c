#include "client/assignment_file.h"

#include <yaml-cpp/yaml.h>

#include <fstream>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "client/sweep_spec.h"
#include "client/sweep_spec_file.h"
#include "client/time_values.h"

namespace kbench::client {
namespace {

constexpr char kKeys[] =
    "name, title, cohort, opens, due, submissions-per-hour, show-names, problems";

absl::Status At(const std::string& file, const std::string& key, const YAML::Node& node,
                const std::string& message) {
  return absl::InvalidArgumentError(
      absl::StrCat(file, ": line ", node.Mark().line + 1, ": ", key, ": ", message));
}

absl::StatusOr<std::string> Scalar(const std::string& file, const std::string& key,
                                   const YAML::Node& node) {
  if (!node.IsScalar()) return At(file, key, node, "must be a single value");
  return node.Scalar();
}

// The problems of `assignment` from the sweep spec in `text` (YAML; `where`
// starts its errors): its points, its op and its variants as the
// baselines. FAILED_PRECONDITION when the spec names no variant.
absl::Status SetProblems(const std::string& text, const std::string& where,
                         v1::Assignment& assignment) {
  absl::StatusOr<SweepSpec> spec = ParseSweepSpec(text, where);
  if (!spec.ok()) return spec.status();
  if (spec->variants.empty())
    return absl::FailedPreconditionError(
        "missing: name the built-in variants shown beside each submission, the first the "
        "baseline, e.g. variant: [naive, fused]");
  absl::StatusOr<std::vector<v1::RunRequest>> points = ExpandSweep(*spec);
  if (!points.ok()) return points.status();
  assignment.set_op(std::string(spec->op->name()));
  assignment.clear_problems();
  assignment.clear_baselines();
  for (v1::RunRequest& point : *points) {
    point.clear_variants();
    point.clear_label();
    point.clear_seed();
    *assignment.add_problems() = std::move(point);
  }
  for (const std::string& variant : spec->variants) assignment.add_baselines(variant);
  return absl::OkStatus();
}

// Sets the scalar `key` of `assignment` to `text`: INVALID_ARGUMENT saying
// why a value is refused; NOT_FOUND for a key that is not one.
absl::Status SetKey(const std::string& key, const std::string& text, int64_t now_unix_ms,
                    v1::Assignment& assignment) {
  if (key == "name") {
    assignment.set_name(text);
  } else if (key == "title") {
    assignment.set_title(text);
  } else if (key == "cohort") {
    assignment.set_cohort(text);
  } else if (key == "opens" || key == "due") {
    absl::StatusOr<int64_t> when = ParseTime(text, now_unix_ms);
    if (!when.ok()) return absl::InvalidArgumentError(when.status().message());
    // ParseTime reads a span (3d) as before now, as --since wants; an
    // assignment's times are ahead: a span counts forward from now.
    const bool span = text.find_first_of("-:") == std::string::npos;
    const int64_t at = span ? now_unix_ms + (now_unix_ms - *when) : *when;
    key == "opens" ? assignment.set_opens_unix_ms(at) : assignment.set_due_unix_ms(at);
  } else if (key == "submissions-per-hour") {
    uint32_t per_hour = 0;
    if (!absl::SimpleAtoi(text, &per_hour) || per_hour == 0)
      return absl::InvalidArgumentError(absl::StrCat("'", text, "' is not a count from 1"));
    assignment.set_submissions_per_hour(per_hour);
  } else if (key == "show-names") {
    if (text != "true" && text != "false")
      return absl::InvalidArgumentError("must be true or false");
    assignment.set_show_names(text == "true");
  } else {
    return absl::NotFoundError(key);
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<v1::Assignment> ParseAssignment(const std::string& text, const std::string& name,
                                               int64_t now_unix_ms) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, ": line ", e.mark.line + 1, ": not valid YAML or JSON: ", e.msg));
  }
  if (!root.IsMap())
    return absl::InvalidArgumentError(
        absl::StrCat(name, ": must be a map of keys (", kKeys, "); see docs/ASSIGNMENTS.md"));
  v1::Assignment assignment;
  bool has_problems = false;
  for (const auto& entry : root) {
    const std::string key = entry.first.Scalar();
    const YAML::Node& value = entry.second;
    if (key == "problems") {
      has_problems = true;
      if (!value.IsMap())
        return At(name, key, value, "must be a sweep spec (op, axes, variant, ...)");
      if (absl::Status set =
              SetProblems(YAML::Dump(value), absl::StrCat(name, ": problems"), assignment);
          !set.ok())
        return absl::IsFailedPrecondition(set)
                   ? At(name, "problems.variant", value, std::string(set.message()))
                   : set;
      continue;
    }
    absl::StatusOr<std::string> scalar = Scalar(name, key, value);
    if (!scalar.ok()) return scalar.status();
    if (absl::Status set = SetKey(key, *scalar, now_unix_ms, assignment); !set.ok())
      return absl::IsNotFound(set)
                 ? At(name, key, entry.first,
                      absl::StrCat("is not a key of an assignment; the keys are ", kKeys))
                 : At(name, key, value, std::string(set.message()));
  }
  if (assignment.name().empty())
    return absl::InvalidArgumentError(absl::StrCat(name, ": name: missing, e.g. name: lab1"));
  if (!has_problems)
    return absl::InvalidArgumentError(
        absl::StrCat(name, ": problems: missing; a sweep spec whose points are the problems"));
  return assignment;
}

absl::StatusOr<v1::Assignment> LoadAssignment(
    const std::string& path, int64_t now_unix_ms,
    const std::vector<std::pair<std::string, std::string>>& overrides) {
  v1::Assignment assignment;
  if (!path.empty()) {
    std::ifstream file(path);
    if (!file) return absl::NotFoundError("cannot read the assignment file " + path);
    std::ostringstream text;
    text << file.rdbuf();
    absl::StatusOr<v1::Assignment> parsed = ParseAssignment(text.str(), path, now_unix_ms);
    if (!parsed.ok()) return parsed.status();
    assignment = *std::move(parsed);
  }
  for (const auto& [key, value] : overrides) {
    const absl::Status set = key == "problems" ? SetProblems(value, "--problems", assignment)
                                               : SetKey(key, value, now_unix_ms, assignment);
    if (!set.ok())
      return absl::InvalidArgumentError(absl::StrCat(
          absl::StartsWith(set.message(), "--") ? "" : "--" + key + ": ", set.message()));
  }
  if (assignment.name().empty())
    return absl::InvalidArgumentError("--name: missing: name the assignment (or give a file)");
  if (assignment.problems().empty())
    return absl::InvalidArgumentError(
        "--problems: missing: a sweep spec whose points are the problems, e.g. --problems "
        "'{op: vector_add, axes: {n: [2^20, 2^24]}, variant: [naive, vectorized]}' (or give "
        "a file)");
  return assignment;
}

}  // namespace kbench::client
