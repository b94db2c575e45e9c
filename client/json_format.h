// The machine-readable reports as JSON (--json). Proto messages are printed
// by protobuf's JSON mapping with the .proto field names and every primitive
// field, zero or not; enums print as their names (e.g. "DTYPE_FP32") and
// 64-bit integers as strings, as that mapping specifies. One exception:
// RunRequest.label is bytes on the wire (so that the server, not the
// protobuf parser, checks its UTF-8) but text to people, so every RunRequest
// in the JSON, at any depth, says its label as text, not base64; and
// ParseRunRequestJson reads it back as text.
#pragma once

#include <string>

#include "client/run_report.h"
#include "kbench/v1/kbench.pb.h"

namespace kbench::client {

// Any message as one JSON object on one line, ending in '\n'.
std::string FormatMessageJson(const google::protobuf::Message& message);

// One object on one line, ending in '\n':
// {"run_id", "op", "request" (the v1::RunRequest sent), "started",
//  "results": [VariantResult...], "summary"}; "started" and "summary" are
// null if they never arrived.
std::string FormatRunJson(const RunReport& report);

// ServerInfo as one JSON object, ending in '\n'.
std::string FormatServerInfoJson(const v1::ServerInfo& info);

// A RunRequest from the JSON these functions print (`json_text`: the
// request's object); false if it is not one. Unknown fields are ignored.
bool ParseRunRequestJson(const std::string& json_text, v1::RunRequest* request);

}  // namespace kbench::client
