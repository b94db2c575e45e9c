#include "server/app/limit_flags.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "proto/ops/registry.h"
#include "server/run/limits.h"

namespace kbench::server {
namespace {

using google::protobuf::FieldDescriptor;

double Get(const v1::Limits& limits, const FieldDescriptor* field) {
  const auto* refl = v1::Limits::GetReflection();
  switch (field->cpp_type()) {
    case FieldDescriptor::CPPTYPE_DOUBLE:
      return refl->GetDouble(limits, field);
    case FieldDescriptor::CPPTYPE_UINT64:
      return double(refl->GetUInt64(limits, field));
    default:
      return double(refl->GetUInt32(limits, field));
  }
}

void Set(v1::Limits& limits, const FieldDescriptor* field, double value) {
  const auto* refl = v1::Limits::GetReflection();
  switch (field->cpp_type()) {
    case FieldDescriptor::CPPTYPE_DOUBLE:
      refl->SetDouble(&limits, field, value);
      break;
    case FieldDescriptor::CPPTYPE_UINT64:
      refl->SetUInt64(&limits, field, uint64_t(value));
      break;
    default:
      refl->SetUInt32(&limits, field, uint32_t(value));
      break;
  }
}

std::string Text(double value) {
  if (value == std::floor(value) && value < 1e15) return absl::StrCat(uint64_t(value));
  return absl::StrCat(value);
}

std::string Help(const std::string& name) {
  static const std::map<std::string, std::string> kHelp = [] {
    std::map<std::string, std::string> help = {
        {"max_warmup_runs", "Most warm-up runs a request may ask for"},
        {"max_samples", "Most samples per variant a request may ask for"},
        {"max_time_budget_ms", "Longest sampling time budget a request may ask for (ms)"},
        {"max_variants", "Most variants in one request"},
        {"max_label_length", "Longest label (bytes)"},
        {"max_queue", "Most runs waiting for a device; more get RESOURCE_EXHAUSTED"},
        {"max_stall_seconds",
         "Seconds a worker may go without progress during a run before it is "
         "killed and restarted (the run ends with INTERNAL)"},
        {"max_reader_stall_seconds",
         "Seconds a Run stream's client may go without reading while events wait; "
         "then its run is cancelled (RESOURCE_EXHAUSTED)"},
        {"max_streams_per_client",
         "Most Run streams one client may have open at once; more get RESOURCE_EXHAUSTED"},
        {"max_run_overhead_seconds",
         "Seconds a run may take beyond twice its time budget (preparation, "
         "verification, checked rounds); past it DEADLINE_EXCEEDED"},
        {"max_kernels", "Most learners' kernels in one request"},
        {"max_kernel_source_bytes", "Largest source of a learner's kernel (bytes)"},
    };
    for (const proto::ops::Op* op : proto::ops::AllOps())
      for (auto& [field, text] : op->LimitHelp()) help[field] = text;
    return help;
  }();
  const auto it = kHelp.find(name);
  return it == kHelp.end() ? name : it->second;
}

}  // namespace

void LimitFlags::Register(CLI::App& app) {
  // Defaults follow the device; help shows those of a CPU and of a GPU.
  v1::DeviceInfo cpu_device, gpu_device;
  gpu_device.set_sm_count(1);
  const v1::Limits cpu = DefaultLimits(cpu_device), cuda = DefaultLimits(gpu_device);
  const auto* descriptor = v1::Limits::descriptor();
  for (int i = 0; i < descriptor->field_count(); ++i) {
    const FieldDescriptor* field = descriptor->field(i);
    const std::string name = field->name();
    const std::string flag = "--" + absl::StrReplaceAll(name, {{"_", "-"}});
    const std::string help = absl::StrCat(Help(name), " [default: cpu ", Text(Get(cpu, field)),
                                          ", gpu ", Text(Get(cuda, field)), "]");
    app.add_option_function<double>(
           flag, [this, name](double value) { given_[name] = value; }, help)
        ->type_name("NUMBER")
        ->check(CLI::PositiveNumber)
        ->group("Limits (requests over them get INVALID_ARGUMENT)");
  }
}

v1::Limits LimitFlags::Resolve(const v1::DeviceInfo& device) const {
  v1::Limits limits = DefaultLimits(device);
  const auto* descriptor = v1::Limits::descriptor();
  for (const auto& [name, value] : given_) Set(limits, descriptor->FindFieldByName(name), value);
  return limits;
}

}  // namespace kbench::server
