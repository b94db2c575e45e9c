// The progress of a sweep over its points, on stderr, with an ETA from the
// points done so far (points skipped by --resume do not count toward it).
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <ostream>
#include <string>

namespace kbench::client {

// "45s", "4m10s", "2h03m".
std::string FormatEta(std::chrono::seconds left);

// On a terminal (is_tty) one bar rewritten in place with '\r':
//   [########............] 12/30 points, 1 failed, ETA 4m10s: attention ...
// elsewhere (a log, a pipe) one line as each point ends:
//   [12/30] attention batch=1 ... seq_len=1024 ..., fp16: ok, ETA 4m10s
// Not thread-safe.
class SweepProgress {
 public:
  using Clock = std::function<std::chrono::steady_clock::time_point()>;

  // `total` points of which `skipped` were already done (--resume).
  SweepProgress(std::ostream& out, bool is_tty, size_t total, size_t skipped,
                Clock clock = std::chrono::steady_clock::now);

  // The point described by `point` starts.
  void Start(const std::string& point);
  // It ended; `result` says how ("ok", "FAILED verification", ...), and
  // `failed` whether it counts as a failure.
  void End(const std::string& result, bool failed);
  // Ends the bar's line on a terminal, so that what follows starts fresh.
  void Finish();

 private:
  // "ETA 4m10s", or "ETA -" before the first point ended.
  std::string Eta() const;
  void DrawBar();

  std::ostream& out_;
  const bool is_tty_;
  const size_t total_;
  const Clock clock_;
  const std::chrono::steady_clock::time_point start_;
  size_t done_;     // skipped points included
  size_t ran_ = 0;  // points run by this sweep
  size_t failed_ = 0;
  std::string point_;
  bool line_open_ = false;
};

}  // namespace kbench::client
