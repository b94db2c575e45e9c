#include "server/limit_flags.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "server/limits.h"

namespace kbench::server {
namespace {

using google::protobuf::FieldDescriptor;

double Get(const v1::Limits& limits, const FieldDescriptor* field) {
  const auto* refl = v1::Limits::GetReflection();
  switch (field->cpp_type()) {
    case FieldDescriptor::CPPTYPE_DOUBLE: return refl->GetDouble(limits, field);
    case FieldDescriptor::CPPTYPE_UINT64: return double(refl->GetUInt64(limits, field));
    default: return double(refl->GetUInt32(limits, field));
  }
}

void Set(v1::Limits& limits, const FieldDescriptor* field, double value) {
  const auto* refl = v1::Limits::GetReflection();
  switch (field->cpp_type()) {
    case FieldDescriptor::CPPTYPE_DOUBLE: refl->SetDouble(&limits, field, value); break;
    case FieldDescriptor::CPPTYPE_UINT64: refl->SetUInt64(&limits, field, uint64_t(value)); break;
    default: refl->SetUInt32(&limits, field, uint32_t(value)); break;
  }
}

std::string Text(double value) {
  if (value == std::floor(value) && value < 1e15) return absl::StrCat(uint64_t(value));
  return absl::StrCat(value);
}

std::string Help(const std::string& name) {
  static const std::map<std::string, std::string> kHelp = {
      {"max_vector_n", "Largest vector add n (elements)"},
      {"max_batch", "Largest attention batch"},
      {"max_heads", "Largest attention heads"},
      {"max_seq_len", "Largest attention seq_len"},
      {"max_head_dim", "Largest attention head_dim"},
      {"max_attention_elements", "Largest batch*heads*seq_len*head_dim (each of Q, K, V, O)"},
      {"max_score_elements", "Largest batch*heads*seq_len^2, the scores the naive variant stores"},
      {"max_attention_gflop", "Largest work of one attention sample, 4*B*H*N^2*d, in GFLOP"},
      {"max_warmup_runs", "Most warm-up runs a request may ask for"},
      {"max_samples", "Most samples per variant a request may ask for"},
      {"max_time_budget_ms", "Longest sampling time budget a request may ask for (ms)"},
      {"max_variants", "Most variants in one request"},
      {"max_label_length", "Longest label (bytes)"},
      {"max_queue", "Most runs waiting for a device; more get RESOURCE_EXHAUSTED"},
  };
  const auto it = kHelp.find(name);
  return it == kHelp.end() ? name : it->second;
}

}  // namespace

void LimitFlags::Register(CLI::App& app) {
  const v1::Limits cpu = DefaultLimits("cpu"), cuda = DefaultLimits("cuda");
  const auto* descriptor = v1::Limits::descriptor();
  for (int i = 0; i < descriptor->field_count(); ++i) {
    const FieldDescriptor* field = descriptor->field(i);
    const std::string name = field->name();
    const std::string flag = "--" + absl::StrReplaceAll(name, {{"_", "-"}});
    const std::string help = absl::StrCat(Help(name), " [default: cpu ", Text(Get(cpu, field)),
                                          ", cuda ", Text(Get(cuda, field)), "]");
    app.add_option_function<double>(
           flag, [this, name](double value) { given_[name] = value; }, help)
        ->type_name("NUMBER")
        ->check(CLI::PositiveNumber)
        ->group("Limits (requests over them get INVALID_ARGUMENT)");
  }
}

v1::Limits LimitFlags::Resolve(const std::string& backend) const {
  v1::Limits limits = DefaultLimits(backend);
  const auto* descriptor = v1::Limits::descriptor();
  for (const auto& [name, value] : given_)
    Set(limits, descriptor->FindFieldByName(name), value);
  return limits;
}

}  // namespace kbench::server
