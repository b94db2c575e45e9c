#include "server_info_format.h"

#include <string_view>

#include "flag_values.h"
#include "result_text.h"

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
  std::string text = "  " + std::to_string(device.index()) + ": " +
                     device.name() + " (" + device.backend() + "), " +
                     (device.healthy() ? "healthy" : "UNHEALTHY") + "\n";
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
    add("max SM clock " + FormatSignificant(device.max_sm_clock_mhz()) +
        " MHz");
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

std::string OpLine(const v1::OpInfo& op) {
  auto to_string = [](const auto& item) { return std::string(item); };
  auto dtype_name = [](int dtype) {
    return std::string(DTypeName(static_cast<v1::DType>(dtype)));
  };
  std::string text = "  " + op.op() + ": variants " +
                     Join(op.variants(), to_string) + "; dtypes " +
                     Join(op.dtypes(), dtype_name);
  if (op.op() == "attention") {
    text += "; head dims ";
    text += op.head_dims().empty() ? std::string("any up to the limit")
                                   : Join(op.head_dims(), [](uint32_t d) {
                                       return std::to_string(d);
                                     });
  }
  return text + "\n";
}

std::string LimitLines(const v1::Limits& l) {
  auto line = [](std::string_view name, const std::string& value) {
    return "  " + std::string(name) + " " + value + "\n";
  };
  using std::to_string;
  return line("max_vector_n", to_string(l.max_vector_n())) +
         line("max_batch", to_string(l.max_batch())) +
         line("max_heads", to_string(l.max_heads())) +
         line("max_seq_len", to_string(l.max_seq_len())) +
         line("max_head_dim", to_string(l.max_head_dim())) +
         line("max_attention_elements", to_string(l.max_attention_elements())) +
         line("max_score_elements", to_string(l.max_score_elements())) +
         line("max_attention_gflop", FormatSignificant(l.max_attention_gflop())) +
         line("max_warmup_runs", to_string(l.max_warmup_runs())) +
         line("max_samples", to_string(l.max_samples())) +
         line("max_time_budget_ms", FormatSignificant(l.max_time_budget_ms())) +
         line("max_variants", to_string(l.max_variants())) +
         line("max_label_length", to_string(l.max_label_length())) +
         line("max_queue", to_string(l.max_queue()));
}

std::string TimingLine(const v1::TimingOptions& t) {
  return "default timing: warmup " + std::to_string(t.warmup_runs()) +
         ", min samples " + std::to_string(t.min_samples()) + ", min time " +
         FormatSignificant(t.min_time_ms()) + " ms, target rse " +
         FormatSignificant(t.target_rse()) + ", budget " +
         FormatSignificant(t.time_budget_ms()) + " ms, max samples " +
         std::to_string(t.max_samples()) + ", mode " +
         std::string(TimingModeName(t.mode())) + "\n";
}

}  // namespace

std::string FormatServerInfo(const v1::ServerInfo& info) {
  std::string text =
      "kbench-server " + info.version() + ", backend " + info.backend() + "\n";
  text += "devices:\n";
  for (const v1::DeviceInfo& device : info.devices()) {
    text += DeviceLines(device);
  }
  text += "ops:\n";
  for (const v1::OpInfo& op : info.ops()) text += OpLine(op);
  text += "limits:\n" + LimitLines(info.limits());
  text += TimingLine(info.default_timing());
  text += "load: " + std::to_string(info.running()) + " running, " +
          std::to_string(info.queued()) + " queued\n";
  return text;
}

}  // namespace kbench::client
