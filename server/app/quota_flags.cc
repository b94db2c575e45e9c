#include "server/app/quota_flags.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "server/front/quota_limits.h"

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

void QuotaFlags::Register(CLI::App& app) {
  const v1::QuotaLimits defaults = DefaultQuotas(), max = MaxQuotas();
  const auto* descriptor = v1::QuotaLimits::descriptor();
  const auto* refl = v1::QuotaLimits::GetReflection();
  for (int i = 0; i < descriptor->field_count(); ++i) {
    const FieldDescriptor* field = descriptor->field(i);
    const std::string name = field->name();
    const auto get = [&](const v1::QuotaLimits& quotas) {
      return field->cpp_type() == FieldDescriptor::CPPTYPE_DOUBLE
                 ? refl->GetDouble(quotas, field)
                 : double(refl->GetUInt32(quotas, field));
    };
    const double value = get(defaults);
    app.add_option_function<double>(
           "--quota-" + absl::StrReplaceAll(name, {{"_", "-"}}),
           [this, name](double v) { given_[name] = v; },
           absl::StrCat(Help().at(name), "; 0: no limit [default: ", QuotaText(value), "]"))
        ->type_name("NUMBER")
        ->check(CLI::Range(0.0, get(max)).description("0 to " + QuotaText(get(max))))
        ->group("Quotas per learner (runs over them get RESOURCE_EXHAUSTED)");
  }
}

v1::QuotaLimits QuotaFlags::Resolve() const {
  v1::QuotaLimits quotas = DefaultQuotas();
  const auto* descriptor = v1::QuotaLimits::descriptor();
  const auto* refl = v1::QuotaLimits::GetReflection();
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
