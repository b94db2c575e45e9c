#include "json_format.h"

#include <google/protobuf/util/json_util.h>

#include <nlohmann/json.hpp>
#include <stdexcept>

namespace kbench::client {
namespace {

nlohmann::json ProtoToJson(const google::protobuf::Message& message) {
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  options.always_print_primitive_fields = true;
  std::string text;
  const auto status =
      google::protobuf::util::MessageToJsonString(message, &text, options);
  // Printing a message of a compiled-in type cannot fail short of a bug.
  if (!status.ok()) throw std::logic_error(status.ToString());
  return nlohmann::json::parse(text);
}

}  // namespace

std::string FormatRunJson(const RunReport& report) {
  nlohmann::json results = nlohmann::json::array();
  for (const v1::VariantResult& result : report.results) {
    results.push_back(ProtoToJson(result));
  }
  const nlohmann::json json = {
      {"run_id", report.run_id},
      {"op", OpName(report.request)},
      {"request", ProtoToJson(report.request)},
      {"started", report.started ? ProtoToJson(*report.started) : nullptr},
      {"results", results},
      {"summary", report.summary ? ProtoToJson(*report.summary) : nullptr},
  };
  return json.dump() + "\n";
}

std::string FormatMessageJson(const google::protobuf::Message& message) {
  return ProtoToJson(message).dump() + "\n";
}

std::string FormatServerInfoJson(const v1::ServerInfo& info) {
  return FormatMessageJson(info);
}

}  // namespace kbench::client
