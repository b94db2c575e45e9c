// What one benchmark run asked for and what the server sent back, collected
// from the event stream for the formatters (table, CSV, JSON).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kbench/v1/kbench.pb.h"

namespace kbench::client {

// The name of the request's op (proto/ops/registry.h) as ServerInfo names
// it, "vector_add"; "unknown" when the request names no op.
std::string_view OpName(const v1::RunRequest& request);

// Plain data: the request, then events in arrival order. Queued and Sample
// events only contribute run_id; the progress reporter shows them.
struct RunReport {
  v1::RunRequest request;
  std::string run_id;
  std::optional<v1::Started> started;
  std::vector<v1::VariantResult> results;
  std::optional<v1::Summary> summary;
};

// Folds `event` into `report`.
void RecordEvent(const v1::RunEvent& event, RunReport& report);

// True when a summary arrived, it says all_verified, and every result passed.
bool AllVerified(const RunReport& report);

// The summary's speedup of `variant` over the baseline, or nullptr (the
// baseline itself, or no summary).
const v1::Speedup* FindSpeedup(const RunReport& report, std::string_view variant);

// The verified result with the lowest median, or nullptr when no result
// passed verification.
const v1::VariantResult* BestVerified(const RunReport& report);

}  // namespace kbench::client
