// Admission: turn a request into an admitted run (problem and timing plan),
// or refuse it with INVALID_ARGUMENT whose message names the field, the
// limit and the value given (e.g. "seq_len must be between 1 and 8192, got
// 0"). Generic over ops: the op of the request's problem (proto/ops)
// checks its own fields; this file checks what every op shares (the
// problem's presence, dtype, variants, timing (timing_resolution.h), label
// (utf8.h)). Pure functions of the request, the limits and the backend.
#pragma once

#include <string_view>

#include "absl/status/statusor.h"
#include "kbench/v1/kbench.pb.h"
#include "server/run/run_plan.h"

namespace kbench::server {

// `backend` is the backend of the server's devices ("cpu", "cuda"): what
// runs is read off the op's variant table for it. The admitted request has
// the request's seed (0 until the service picks one), and none of the
// fields this server does not know.
absl::StatusOr<AdmittedRun> Admit(const v1::RunRequest& request, const v1::Limits& limits,
                                  std::string_view backend, const TimingPlan& defaults);

// The request as admitted, every choice explicit: seed, dtype, variants in
// run order and every timing field. What a worker receives and the store
// keeps; admitting it again gives the same run.
v1::RunRequest Resolved(const AdmittedRun& run);

// An assignment submission's id (RunRequest.submission_id): "sub-" and
// kSubmissionIdDigits lowercase hex digits.
inline constexpr std::string_view kSubmissionIdPrefix = "sub-";
inline constexpr size_t kSubmissionIdDigits = 12;
// OK for an id of that form; INVALID_ARGUMENT naming `field` otherwise.
absl::Status CheckSubmissionId(std::string_view field, std::string_view id);

}  // namespace kbench::server
