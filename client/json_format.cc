#include "client/json_format.h"

#include <google/protobuf/util/json_util.h>

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "proto/ops/dtypes.h"

namespace kbench::client {
namespace {

// Every RunRequest in `message` says its label and variants as text in
// `json` (they are bytes in the proto, whose JSON form is base64).
void LabelsAsText(const google::protobuf::Message& message, nlohmann::json& json) {
  using google::protobuf::FieldDescriptor;
  if (const auto* request = dynamic_cast<const v1::RunRequest*>(&message)) {
    json["label"] = request->label();
    json["variants"] =
        std::vector<std::string>(request->variants().begin(), request->variants().end());
    return;
  }
  const google::protobuf::Descriptor* descriptor = message.GetDescriptor();
  const google::protobuf::Reflection* reflection = message.GetReflection();
  for (int i = 0; i < descriptor->field_count(); ++i) {
    const FieldDescriptor* field = descriptor->field(i);
    if (field->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE || field->is_repeated() ||
        !reflection->HasField(message, field) || !json.contains(field->name()))
      continue;
    LabelsAsText(reflection->GetMessage(message, field), json[field->name()]);
  }
}

// Every 64-bit integer field of `message` is a number in `json`, not the
// string proto3's JSON mapping makes of it (a script reads "n": 1000, not
// "n": "1000").
void IntegersAsNumbers(const google::protobuf::Message& message, nlohmann::json& json) {
  using google::protobuf::FieldDescriptor;
  const google::protobuf::Descriptor* descriptor = message.GetDescriptor();
  const google::protobuf::Reflection* reflection = message.GetReflection();
  for (int i = 0; i < descriptor->field_count(); ++i) {
    const FieldDescriptor* field = descriptor->field(i);
    if (!json.is_object() || !json.contains(field->name())) continue;
    nlohmann::json& value = json[field->name()];
    switch (field->cpp_type()) {
      case FieldDescriptor::CPPTYPE_INT64:
        if (field->is_repeated()) {
          for (int k = 0; k < reflection->FieldSize(message, field); ++k)
            value[size_t(k)] = reflection->GetRepeatedInt64(message, field, k);
        } else {
          value = reflection->GetInt64(message, field);
        }
        break;
      case FieldDescriptor::CPPTYPE_UINT64:
        if (field->is_repeated()) {
          for (int k = 0; k < reflection->FieldSize(message, field); ++k)
            value[size_t(k)] = reflection->GetRepeatedUInt64(message, field, k);
        } else {
          value = reflection->GetUInt64(message, field);
        }
        break;
      case FieldDescriptor::CPPTYPE_MESSAGE:
        if (field->is_map()) break;
        if (field->is_repeated()) {
          for (int k = 0; k < reflection->FieldSize(message, field) && k < int(value.size()); ++k)
            IntegersAsNumbers(reflection->GetRepeatedMessage(message, field, k), value[size_t(k)]);
        } else if (reflection->HasField(message, field)) {
          IntegersAsNumbers(reflection->GetMessage(message, field), value);
        }
        break;
      default:
        break;
    }
  }
}

// A label that is not UTF-8 (one the server would refuse) prints with
// U+FFFD in place of its bad bytes rather than failing.
std::string Dump(const nlohmann::json& json) {
  return json.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

nlohmann::json ProtoToJson(const google::protobuf::Message& message) {
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  options.always_print_primitive_fields = true;
  std::string text;
  const auto status = google::protobuf::util::MessageToJsonString(message, &text, options);
  // Printing a message of a compiled-in type cannot fail short of a bug.
  if (!status.ok()) throw std::logic_error(status.ToString());
  nlohmann::json json = nlohmann::json::parse(text);
  IntegersAsNumbers(message, json);
  LabelsAsText(message, json);
  return json;
}

}  // namespace

std::string FormatRunJson(const RunReport& report) {
  nlohmann::json results = nlohmann::json::array();
  for (const v1::VariantResult& result : report.results) {
    results.push_back(ProtoToJson(result));
  }
  // The request as it ran: an unset dtype is the default it stands for.
  v1::RunRequest request = report.request;
  request.set_dtype(proto::ops::ToProto(proto::ops::FromProto(request.dtype())));
  const nlohmann::json json = {
      {"run_id", report.run_id},
      {"op", OpName(report.request)},
      {"request", ProtoToJson(request)},
      {"started", report.started ? ProtoToJson(*report.started) : nullptr},
      {"results", results},
      {"summary", report.summary ? ProtoToJson(*report.summary) : nullptr},
  };
  return Dump(json) + "\n";
}

std::string FormatMessageJson(const google::protobuf::Message& message) {
  return Dump(ProtoToJson(message)) + "\n";
}

std::string FormatServerInfoJson(const v1::ServerInfo& info) { return FormatMessageJson(info); }

bool ParseRunRequestJson(const std::string& json_text, v1::RunRequest* request) {
  nlohmann::json json = nlohmann::json::parse(json_text, nullptr, false);
  if (json.is_discarded() || !json.is_object()) return false;
  std::string label;
  if (json.contains("label")) {
    if (!json["label"].is_string()) return false;
    label = json["label"].get<std::string>();
    json.erase("label");
  }
  std::vector<std::string> variants;
  if (json.contains("variants")) {
    if (!json["variants"].is_array()) return false;
    for (const nlohmann::json& v : json["variants"]) {
      if (!v.is_string()) return false;
      variants.push_back(v.get<std::string>());
    }
    json.erase("variants");
  }
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = true;
  if (!google::protobuf::util::JsonStringToMessage(json.dump(), request, options).ok())
    return false;
  request->set_label(label);
  for (std::string& v : variants) request->add_variants(std::move(v));
  return true;
}

}  // namespace kbench::client
