#include "client/run_report.h"

#include "proto/ops/registry.h"

namespace kbench::client {

std::string_view OpName(const v1::RunRequest& request) {
  const proto::ops::Op* op = proto::ops::OpOf(request);
  return op == nullptr ? "unknown" : op->name();
}

void RecordEvent(const v1::RunEvent& event, RunReport& report) {
  switch (event.event_case()) {
    case v1::RunEvent::kQueued:
      report.run_id = event.queued().run_id();
      break;
    case v1::RunEvent::kStarted:
      report.run_id = event.started().run_id();
      report.started = event.started();
      break;
    case v1::RunEvent::kVariantResult:
      report.results.push_back(event.variant_result());
      break;
    case v1::RunEvent::kSummary:
      report.run_id = event.summary().run_id();
      report.summary = event.summary();
      break;
    case v1::RunEvent::kSamples:
    case v1::RunEvent::EVENT_NOT_SET:
      break;
  }
}

bool AllVerified(const RunReport& report) {
  if (!report.summary || !report.summary->all_verified()) return false;
  for (const v1::VariantResult& result : report.results) {
    if (!result.verification().passed()) return false;
  }
  return true;
}

const v1::Speedup* FindSpeedup(const RunReport& report, std::string_view variant) {
  if (!report.summary || report.results.empty()) return nullptr;
  // Against the baseline (a learner's kernel has one against each other
  // built-in too).
  const std::string& baseline = report.results.front().variant();
  for (const v1::Speedup& speedup : report.summary->speedups()) {
    if (speedup.variant() == variant && speedup.baseline() == baseline) return &speedup;
  }
  return nullptr;
}

const v1::VariantResult* BestVerified(const RunReport& report) {
  const v1::VariantResult* best = nullptr;
  for (const v1::VariantResult& result : report.results) {
    if (!result.verification().passed()) continue;
    if (best == nullptr || result.stats().median_ms() < best->stats().median_ms()) {
      best = &result;
    }
  }
  return best;
}

}  // namespace kbench::client
