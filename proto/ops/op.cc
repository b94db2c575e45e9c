#include "proto/ops/op.h"

#include "absl/strings/str_cat.h"

namespace kbench::proto::ops {

using google::protobuf::FieldDescriptor;

const VariantSupport* VariantSpec::On(std::string_view backend) const {
  for (const VariantSupport& s : support)
    if (s.backend == backend) return &s;
  return nullptr;
}

absl::Status Op::CheckVariants(const v1::RunRequest&, const std::vector<const VariantSpec*>&,
                               std::string_view, const v1::Limits&) const {
  return absl::OkStatus();
}

const VariantSpec* Op::FindVariant(std::string_view name) const {
  for (const VariantSpec& v : variants())
    if (v.name == name) return &v;
  return nullptr;
}

std::string Op::FieldText(const v1::RunRequest& request, const ProblemField& field) const {
  const google::protobuf::Message& problem = Problem(request);
  const FieldDescriptor* f = problem.GetDescriptor()->FindFieldByName(field.field);
  const auto* reflection = problem.GetReflection();
  if (f == nullptr) return "";
  switch (f->cpp_type()) {
    case FieldDescriptor::CPPTYPE_UINT32:
      return absl::StrCat(reflection->GetUInt32(problem, f));
    case FieldDescriptor::CPPTYPE_UINT64:
      return absl::StrCat(reflection->GetUInt64(problem, f));
    case FieldDescriptor::CPPTYPE_BOOL:
      return reflection->GetBool(problem, f) ? "true" : "false";
    default:
      return "";
  }
}

std::string Op::Describe(const v1::RunRequest& request) const {
  const std::string problem = DescribeProblem(request);
  return problem.empty() ? std::string(name()) : std::string(name()) + " " + problem;
}

std::string Op::DescribeProblem(const v1::RunRequest& request) const {
  std::string text;
  for (const ProblemField& field : fields()) {
    const std::string value = FieldText(request, field);
    if (value == "false") continue;
    absl::StrAppend(&text, text.empty() ? "" : " ", field.field,
                    value == "true" ? "" : "=" + value);
  }
  return text;
}

}  // namespace kbench::proto::ops
