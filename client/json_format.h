// The machine-readable reports as JSON (--json). Proto messages are printed
// by protobuf's JSON mapping with the .proto field names and every primitive
// field, zero or not; enums print as their names (e.g. "DTYPE_FP32") and
// 64-bit integers as strings, as that mapping specifies.
#ifndef KBENCH_CLIENT_JSON_FORMAT_H_
#define KBENCH_CLIENT_JSON_FORMAT_H_

#include <string>

#include "kbench/v1/kbench.pb.h"
#include "run_report.h"

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

}  // namespace kbench::client

#endif  // KBENCH_CLIENT_JSON_FORMAT_H_
