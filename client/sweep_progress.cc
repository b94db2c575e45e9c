#include "client/sweep_progress.h"

#include <cstdio>

namespace kbench::client {
namespace {

constexpr size_t kBarWidth = 20;

}  // namespace

std::string FormatEta(std::chrono::seconds left) {
  const long long s = left.count() < 0 ? 0 : left.count();
  char text[32];
  if (s < 60) {
    std::snprintf(text, sizeof(text), "%llds", s);
  } else if (s < 3600) {
    std::snprintf(text, sizeof(text), "%lldm%02llds", s / 60, s % 60);
  } else {
    std::snprintf(text, sizeof(text), "%lldh%02lldm", s / 3600, s / 60 % 60);
  }
  return text;
}

SweepProgress::SweepProgress(std::ostream& out, bool is_tty, size_t total, size_t skipped,
                             Clock clock)
    : out_(out),
      is_tty_(is_tty),
      total_(total),
      clock_(std::move(clock)),
      start_(clock_()),
      done_(skipped) {
  if (skipped > 0) {
    out_ << "resume: " << skipped << " of " << total
         << " points already in the file; running the other " << total - skipped << std::endl;
  }
}

std::string SweepProgress::Eta() const {
  if (ran_ == 0) return "ETA -";
  const auto per_point = (clock_() - start_) / ran_;
  // Rounded up: points of under a second each would otherwise read "0s"
  // until the end.
  return "ETA " + FormatEta(std::chrono::ceil<std::chrono::seconds>(per_point * (total_ - done_)));
}

void SweepProgress::DrawBar() {
  const size_t filled = total_ == 0 ? kBarWidth : done_ * kBarWidth / total_;
  out_ << "\r\033[K[" << std::string(filled, '#') << std::string(kBarWidth - filled, '.') << "] "
       << done_ << "/" << total_ << " points";
  if (failed_ > 0) out_ << ", " << failed_ << " failed";
  out_ << ", " << Eta();
  if (!point_.empty()) out_ << ": " << point_;
  out_ << std::flush;
  line_open_ = true;
}

void SweepProgress::Start(const std::string& point) {
  point_ = point;
  if (is_tty_) DrawBar();
}

void SweepProgress::End(const std::string& result, bool failed) {
  ++done_;
  ++ran_;
  if (failed) ++failed_;
  if (is_tty_) {
    point_.clear();
    DrawBar();
    return;
  }
  out_ << "[" << done_ << "/" << total_ << "] " << point_ << ": " << result << ", " << Eta()
       << std::endl;
}

void SweepProgress::Finish() {
  if (!line_open_) return;
  out_ << "\n" << std::flush;
  line_open_ = false;
}

}  // namespace kbench::client
