// Shows a run's progress to a person, on stderr: the queue position, the
// device that took the run, a live count of samples per variant (the totals
// each SampleBatch carries, so a batch the server coalesced loses none), and each
// variant's verification as its result arrives.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "kbench/v1/kbench.pb.h"

namespace kbench::client {

// On a terminal (is_tty) the sample counts are one line rewritten in place
// with '\r' at most every 100 ms; elsewhere (a log, a pipe) a counts line is
// printed at most every 2 s, and again when a variant result arrives. Lines:
//   queued: position 2, about 12 s (1 running)
//   started on cpu (AMD EPYC 9654), variants naive,fused
//   samples: naive 120, fused 118
//   naive: verified (rel err 3.10e-08, tolerance 1.00e-05)
//   fused: FAILED verification (rel err 4.20e-01, tolerance 1.00e-05)
// Not thread-safe: call it from the thread that reads the event stream.
class ProgressReporter {
 public:
  using Clock = std::function<std::chrono::steady_clock::time_point()>;

  ProgressReporter(std::ostream& out, bool is_tty, Clock clock = std::chrono::steady_clock::now);

  void OnEvent(const v1::RunEvent& event);

  // Ends a line left open by a terminal rewrite, so that what is written
  // next (an error, the results) starts on a fresh line. Idempotent.
  void Finish();

 private:
  void OnStarted(const v1::Started& started);
  void OnSamples(const v1::SampleBatch& batch);
  void OnVariantResult(const v1::VariantResult& result);
  std::string CountsLine() const;
  // Writes the counts line: in place on a terminal, as a new line elsewhere.
  void WriteCounts();

  std::ostream& out_;
  const bool is_tty_;
  const Clock clock_;
  // Samples so far per variant, in the order the Started event named them.
  std::vector<std::pair<std::string, uint32_t>> counts_;
  bool counts_changed_ = false;
  std::chrono::steady_clock::time_point last_counts_write_{};
  // Length of the counts line a terminal shows, open (no '\n' yet); 0 if none.
  size_t open_line_length_ = 0;
  // The last queue position shown; -1 before the first.
  int64_t last_position_ = -1;
};

}  // namespace kbench::client
