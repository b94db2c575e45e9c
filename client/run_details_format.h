// Everything stored of one run, for `kbench show RUN_ID`.
#pragma once

#include <string>

#include "kbench/v1/history.pb.h"

namespace kbench::client {

// Lines ending in '\n': the run id, status and error; who (user, peer) and
// label; when it was accepted, started and ended; the request (shape,
// dtype, variants, timing options as sent or resolved, seed); the device
// and its measured ceilings; then the variant table and footer that
// `kbench` prints for a live run (statistics, throughput, verification,
// speedups); then each variant's verification in full and its samples
// summarised (count, min, median, max), never listed one by one.
std::string FormatRunDetails(const v1::RunRecord& run);

// The sources of the run's own kernels (RunRequest.kernels), each after a
// line "// kernels[i] NAME (LANGUAGE, entry ENTRY)", bytes as sent;
// "// run RUN_ID has no kernels of its own\n" when it has none.
std::string FormatRunSources(const v1::RunRecord& run);

}  // namespace kbench::client
