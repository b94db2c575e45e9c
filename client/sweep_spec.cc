#include "client/sweep_spec.h"

#include <algorithm>
#include <limits>

#include "client/flag_values.h"
#include "client/problem_fields.h"
#include "kernels/common/status_macros.h"

namespace kbench::client {
namespace {

// Splits on commas, trimming spaces; an empty item is refused.
absl::StatusOr<std::vector<std::string_view>> SplitItems(std::string_view text) {
  std::vector<std::string_view> items;
  size_t begin = 0;
  while (true) {
    const size_t comma = text.find(',', begin);
    std::string_view item =
        text.substr(begin, comma == std::string_view::npos ? comma : comma - begin);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    if (item.empty()) {
      return BadValue(text,
                      "has an empty value; separate values by commas, "
                      "e.g. 512,1024");
    }
    items.push_back(item);
    if (comma == std::string_view::npos) return items;
    begin = comma + 1;
  }
}

template <typename T>
absl::Status CheckNoRepeat(const std::vector<T>& values, const T& value, std::string_view text) {
  if (std::find(values.begin(), values.end(), value) != values.end()) {
    return BadValue(text, "lists a value twice");
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<std::string>> AxisItemValues(const proto::ops::ProblemField& field,
                                                        std::string_view item) {
  if (IsBoolField(field)) {
    if (item == "both") return std::vector<std::string>{"false", "true"};
    if (item == "true" || item == "false") {
      return std::vector<std::string>{std::string(item)};
    }
    return BadValue(item, "is not true, false or both");
  }
  const size_t dots = item.find("..");
  if (dots == std::string_view::npos) {
    KBENCH_ASSIGN_OR_RETURN(const uint64_t value, ParseCount(item));
    return std::vector<std::string>{std::to_string(value)};
  }
  const absl::StatusOr<uint64_t> low = ParseCount(item.substr(0, dots));
  const absl::StatusOr<uint64_t> high = ParseCount(item.substr(dots + 2));
  if (!low.ok() || !high.ok() || *low > *high) {
    return BadValue(item,
                    "is not a range LOW..HIGH of counts with LOW <= HIGH, e.g. "
                    "2^9..2^14 (512, 1024, ... 16384: doubling from LOW)");
  }
  std::vector<std::string> values;
  for (uint64_t value = *low; value <= *high;) {
    values.push_back(std::to_string(value));
    if (value > std::numeric_limits<uint64_t>::max() / 2) break;
    value *= 2;
  }
  return values;
}

absl::StatusOr<std::vector<std::string>> AxisValues(const proto::ops::ProblemField& field,
                                                    std::string_view text) {
  KBENCH_ASSIGN_OR_RETURN(const std::vector<std::string_view> items, SplitItems(text));
  std::vector<std::string> values;
  for (std::string_view item : items) {
    KBENCH_ASSIGN_OR_RETURN(std::vector<std::string> more, AxisItemValues(field, item));
    for (std::string& value : more) {
      if (std::find(values.begin(), values.end(), value) != values.end()) {
        return BadValue(text, "lists " + value + " twice");
      }
      values.push_back(std::move(value));
    }
  }
  return values;
}

absl::StatusOr<std::vector<v1::DType>> DTypeValues(std::string_view text) {
  KBENCH_ASSIGN_OR_RETURN(const std::vector<std::string_view> items, SplitItems(text));
  std::vector<v1::DType> dtypes;
  for (std::string_view item : items) {
    KBENCH_ASSIGN_OR_RETURN(const v1::DType dtype, ParseDType(item));
    KBENCH_RETURN_IF_ERROR(CheckNoRepeat(dtypes, dtype, text));
    dtypes.push_back(dtype);
  }
  return dtypes;
}

size_t PointCount(const SweepSpec& spec) {
  // Saturates just above the limit, so that no product overflows.
  size_t count = std::max<size_t>(spec.dtypes.size(), 1);
  for (const SweepAxis& axis : spec.axes) {
    count = std::min(count * axis.values.size(), kMaxSweepPoints + 1);
  }
  return count;
}

absl::StatusOr<std::vector<v1::RunRequest>> ExpandSweep(const SweepSpec& spec) {
  const proto::ops::Op& op = *spec.op;
  // Each field of the op in its order, with its values: the axis's, or the
  // default alone.
  std::vector<std::pair<const proto::ops::ProblemField*, std::vector<std::string>>> dimensions;
  for (const proto::ops::ProblemField& field : op.fields()) {
    auto axis = std::find_if(spec.axes.begin(), spec.axes.end(), [&field](const SweepAxis& a) {
      return a.field->field == field.field;
    });
    if (axis != spec.axes.end()) {
      dimensions.emplace_back(&field, axis->values);
    } else if (IsBoolField(field)) {
      dimensions.emplace_back(&field, std::vector<std::string>{"false"});
    } else if (!field.default_value.empty()) {
      dimensions.emplace_back(&field, std::vector<std::string>{field.default_value});
    } else {
      return absl::InvalidArgumentError(field.flag + ": required; give its values, e.g. " +
                                        field.flag + " 512,1024 or " + field.flag + " 2^9..2^12");
    }
  }
  const size_t count = PointCount(spec);
  if (count > kMaxSweepPoints) {
    return absl::InvalidArgumentError(
        "the sweep has more than " + std::to_string(kMaxSweepPoints) +
        " points, the most one sweep may have; split it into several sweeps "
        "(each with its own --out) or give fewer values");
  }
  v1::RunRequest base;
  op.MutableProblem(base);  // selects the op's case of the oneof
  for (const std::string& variant : spec.variants) base.add_variants(variant);
  *base.mutable_timing() = spec.timing;
  base.set_seed(spec.seed);
  base.set_label(spec.label);
  const std::vector<v1::DType> dtypes =
      spec.dtypes.empty() ? std::vector<v1::DType>{v1::DTYPE_UNSPECIFIED} : spec.dtypes;

  std::vector<v1::RunRequest> points;
  points.reserve(count);
  // An odometer over the dimensions, then dtype fastest.
  std::vector<size_t> index(dimensions.size(), 0);
  while (true) {
    v1::RunRequest point = base;
    for (size_t d = 0; d < dimensions.size(); ++d) {
      const proto::ops::ProblemField& field = *dimensions[d].first;
      const absl::Status status =
          SetProblemField(*op.MutableProblem(point), field, dimensions[d].second[index[d]]);
      if (!status.ok()) {
        return absl::InvalidArgumentError(field.flag + ": " + std::string(status.message()));
      }
    }
    for (v1::DType dtype : dtypes) {
      point.set_dtype(dtype);
      points.push_back(point);
    }
    size_t d = dimensions.size();
    while (d > 0 && ++index[d - 1] == dimensions[d - 1].second.size()) {
      index[--d] = 0;
    }
    if (d == 0) return points;
  }
}

}  // namespace kbench::client
