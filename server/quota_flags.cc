#include "server/quota_flags.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"

namespace kbench::server {
namespace {

using google::protobuf::FieldDescriptor;

const std::map<std::string, std::string>& Help() {
  static const std::map<std::string, std::string> kHelp = {
      {"queued_runs", "Runs of one learner waiting for a device at once"},
      {"open_streams", "Run streams of one learner open at once (waiting or running)"},
      {"device_seconds_per_hour", "Device seconds of one learner's runs per hour"},
      {"device_seconds_per_day", "Device seconds of one learner's runs per 24 hours"},
      {"runs_per_minute", "Runs one learner may submit per minute"},
  };
  return kHelp;
}

}  // namespace

v1::Quotas DefaultQuotas() {
  v1::Quotas quotas;
  quotas.set_queued_runs(4);
  quotas.set_open_streams(8);
  quotas.set_device_seconds_per_hour(900);
  quotas.set_device_seconds_per_day(3600);
  quotas.set_runs_per_minute(30);
  return quotas;
}

void QuotaFlags::Register(CLI::App& app) {
  const v1::Quotas defaults = DefaultQuotas();
  const auto* descriptor = v1::Quotas::descriptor();
  const auto* refl = v1::Quotas::GetReflection();
  for (int i = 0; i < descriptor->field_count(); ++i) {
    const FieldDescriptor* field = descriptor->field(i);
    const std::string name = field->name();
    const double value = field->cpp_type() == FieldDescriptor::CPPTYPE_DOUBLE
                             ? refl->GetDouble(defaults, field)
                             : double(refl->GetUInt32(defaults, field));
    app.add_option_function<double>(
           "--quota-" + absl::StrReplaceAll(name, {{"_", "-"}}),
           [this, name](double v) { given_[name] = v; },
           absl::StrCat(Help().at(name), "; 0: no limit [default: ", value, "]"))
        ->type_name("NUMBER")
        ->check(CLI::NonNegativeNumber)
        ->group("Quotas per learner (runs over them get RESOURCE_EXHAUSTED)");
  }
}

v1::Quotas QuotaFlags::Resolve() const {
  v1::Quotas quotas = DefaultQuotas();
  const auto* descriptor = v1::Quotas::descriptor();
  const auto* refl = v1::Quotas::GetReflection();
  for (const auto& [name, value] : given_) {
    const FieldDescriptor* field = descriptor->FindFieldByName(name);
    if (field->cpp_type() == FieldDescriptor::CPPTYPE_DOUBLE)
      refl->SetDouble(&quotas, field, value);
    else
      refl->SetUInt32(&quotas, field, uint32_t(value));
  }
  return quotas;
}

}  // namespace kbench::server
