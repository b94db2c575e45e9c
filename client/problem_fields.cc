#include "client/problem_fields.h"

#include <limits>
#include <stdexcept>
#include <string>

#include "client/flag_values.h"
#include "kernels/common/status_macros.h"

namespace kbench::client {

absl::Status SetProblemField(google::protobuf::Message& problem,
                             const proto::ops::ProblemField& field, std::string_view text) {
  using google::protobuf::FieldDescriptor;
  const FieldDescriptor* f = problem.GetDescriptor()->FindFieldByName(field.field);
  if (f == nullptr) {
    throw std::logic_error("the problem " + problem.GetTypeName() + " has no field " + field.field);
  }
  const google::protobuf::Reflection* reflection = problem.GetReflection();
  switch (f->cpp_type()) {
    case FieldDescriptor::CPPTYPE_BOOL:
      if (text != "true" && text != "false") {
        return BadValue(text, "is not true or false");
      }
      reflection->SetBool(&problem, f, text == "true");
      return absl::OkStatus();
    case FieldDescriptor::CPPTYPE_UINT64: {
      KBENCH_ASSIGN_OR_RETURN(const uint64_t value, ParseCount(text));
      reflection->SetUInt64(&problem, f, value);
      return absl::OkStatus();
    }
    case FieldDescriptor::CPPTYPE_UINT32: {
      KBENCH_ASSIGN_OR_RETURN(const uint64_t value, ParseCount(text));
      if (value > std::numeric_limits<uint32_t>::max()) {
        return BadValue(text, "is too large; the most is " +
                                  std::to_string(std::numeric_limits<uint32_t>::max()));
      }
      reflection->SetUInt32(&problem, f, static_cast<uint32_t>(value));
      return absl::OkStatus();
    }
    default:
      throw std::logic_error("problem field " + field.field + " has a type the CLI cannot set");
  }
}

}  // namespace kbench::client
