#include "client/server_info_format.h"

#include <string_view>

#include "client/flag_values.h"
#include "client/result_text.h"
#include "proto/ops/registry.h"

namespace kbench::client {
namespace {

template <typename List, typename ToText>
std::string Join(const List& items, ToText to_text) {
  std::string text;
  for (const auto& item : items) {
    if (!text.empty()) text += ", ";
    text += to_text(item);
  }
  return text.empty() ? "-" : text;
}

std::string DeviceLines(const v1::DeviceInfo& device) {
  std::string text = "  " + std::to_string(device.index()) + ": " + device.name() + " (" +
                     device.backend() + "), " + (device.healthy() ? "healthy" : "UNHEALTHY") + "\n";
  std::string properties;
  auto add = [&properties](const std::string& property) {
    properties += (properties.empty() ? "" : ", ") + property;
  };
  if (device.sm_count() > 0) add(std::to_string(device.sm_count()) + " SMs");
  if (device.l2_bytes() > 0) add("L2 " + FormatBytes(device.l2_bytes()));
  if (device.memory_bytes() > 0) {
    add("memory " + FormatBytes(device.memory_bytes()));
  }
  if (device.max_sm_clock_mhz() > 0) {
    add("max SM clock " + FormatSignificant(device.max_sm_clock_mhz()) + " MHz");
  }
  if (!device.compute_capability().empty()) {
    add("compute capability " + device.compute_capability());
  }
  if (!properties.empty()) text += "     " + properties + "\n";
  auto ceiling = [](double value, std::string_view unit) {
    return value > 0 ? FormatSignificant(value) + " " + std::string(unit)
                     : std::string("not measured");
  };
  text += "     measured ceilings: copy bandwidth " +
          ceiling(device.copy_bandwidth_gbps(), "GB/s") + ", matmul " +
          ceiling(device.matmul_tflops(), "TFLOP/s") + "\n";
  return text;
}

std::string DTypeList(const google::protobuf::RepeatedField<int>& dtypes) {
  return Join(dtypes, [](int dtype) { return DTypeName(static_cast<v1::DType>(dtype)); });
}

// Whether the op (as this client knows it) has a head_dim problem field,
// for which an empty list of head dims means any up to the limit.
bool TakesHeadDim(const std::string& op_name) {
  const proto::ops::Op* op = proto::ops::FindOp(op_name);
  if (op == nullptr) return false;
  for (const proto::ops::ProblemField& field : op->fields()) {
    if (field.field == "head_dim") return true;
  }
  return false;
}

std::string HeadDims(const google::protobuf::RepeatedField<uint32_t>& dims) {
  return Join(dims, [](uint32_t d) { return std::to_string(d); });
}

// The op and its description, then one line per variant: its dtypes, head
// dims where it has a list of them (or the op takes a head_dim), and what
// it does. A server without variant_details gets the op-level lists.
std::string OpLines(const v1::OpInfo& op) {
  std::string text = "  " + op.op();
  if (!op.description().empty()) text += ": " + op.description();
  text += "\n";
  const bool takes_head_dim = TakesHeadDim(op.op());
  if (op.variant_details().empty()) {
    text += "    variants " + Join(op.variants(), [](const std::string& v) { return v; }) +
            "; dtypes " + DTypeList(op.dtypes());
    if (!op.head_dims().empty()) text += "; head dims " + HeadDims(op.head_dims());
    return text + "\n";
  }
  for (const v1::VariantInfo& variant : op.variant_details()) {
    text += "    " + variant.name() + " (" + DTypeList(variant.dtypes());
    if (!variant.head_dims().empty()) {
      text += "; head dims " + HeadDims(variant.head_dims());
    } else if (takes_head_dim) {
      text += "; any head dim up to max_head_dim";
    }
    text += ")";
    if (!variant.summary().empty()) text += ": " + variant.summary();
    text += "\n";
  }
  return text;
}

// Every field of Limits, in the order of the proto, so that an op's new
// limits show without a change here.
std::string LimitLines(const v1::Limits& limits) {
  using google::protobuf::FieldDescriptor;
  const google::protobuf::Descriptor* descriptor = limits.GetDescriptor();
  const google::protobuf::Reflection* reflection = limits.GetReflection();
  std::string text;
  for (int i = 0; i < descriptor->field_count(); ++i) {
    const FieldDescriptor* field = descriptor->field(i);
    std::string value;
    switch (field->cpp_type()) {
      case FieldDescriptor::CPPTYPE_UINT32:
        value = std::to_string(reflection->GetUInt32(limits, field));
        break;
      case FieldDescriptor::CPPTYPE_UINT64:
        value = std::to_string(reflection->GetUInt64(limits, field));
        break;
      case FieldDescriptor::CPPTYPE_DOUBLE:
        value = FormatSignificant(reflection->GetDouble(limits, field));
        break;
      default:
        continue;
    }
    text += "  " + field->name() + " " + value + "\n";
  }
  return text;
}

std::string TimingLine(const v1::TimingOptions& t) {
  return "default timing: warmup " + std::to_string(t.warmup_runs()) + ", min samples " +
         std::to_string(t.min_samples()) + ", min time " + FormatSignificant(t.min_time_ms()) +
         " ms, target rse " + FormatSignificant(t.target_rse()) + ", min effect " +
         FormatSignificant(t.min_effect()) + ", budget " + FormatSignificant(t.time_budget_ms()) +
         " ms, max samples " + std::to_string(t.max_samples()) + ", mode " +
         std::string(TimingModeName(t.mode())) + "\n";
}

}  // namespace

std::string FormatServerInfo(const v1::ServerInfo& info) {
  std::string text = "kbench-server " + info.version() + ", backend " + info.backend() + "\n";
  text += "devices:\n";
  for (const v1::DeviceInfo& device : info.devices()) {
    text += DeviceLines(device);
  }
  text += "ops:\n";
  for (const v1::OpInfo& op : info.ops()) text += OpLines(op);
  text += "limits:\n" + LimitLines(info.limits());
  text += TimingLine(info.default_timing());
  text += "load: " + std::to_string(info.running()) + " running, " + std::to_string(info.queued()) +
          " queued\n";
  return text;
}

}  // namespace kbench::client
