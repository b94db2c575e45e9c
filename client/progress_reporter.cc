#include "client/progress_reporter.h"

#include <algorithm>
#include <cmath>

#include "client/result_text.h"

namespace kbench::client {
namespace {

constexpr std::chrono::milliseconds kTtyInterval(100);
constexpr std::chrono::milliseconds kLogInterval(2000);

// An ETA in whole seconds, or minutes from two minutes on: "12 s", "5 min".
std::string AboutText(double seconds) {
  const long rounded = std::lround(std::max(0.0, seconds));
  return rounded < 120 ? std::to_string(rounded) + " s"
                       : std::to_string((rounded + 30) / 60) + " min";
}

}  // namespace

ProgressReporter::ProgressReporter(std::ostream& out, bool is_tty, Clock clock)
    : out_(out), is_tty_(is_tty), clock_(std::move(clock)) {}

void ProgressReporter::OnEvent(const v1::RunEvent& event) {
  switch (event.event_case()) {
    case v1::RunEvent::kQueued:
      Finish();
      out_ << "queued: position " << event.queued().position() << ", about "
           << AboutText(event.queued().eta_seconds()) << " (" << event.queued().running()
           << " running)";
      // The queue is fair, not first come: a run of a learner who used less
      // device time (or an instructor's) can go ahead.
      if (last_position_ >= 0 && int64_t(event.queued().position()) > last_position_)
        out_ << "; moved back: runs of learners with less device time lately go first";
      out_ << std::endl;
      last_position_ = event.queued().position();
      break;
    case v1::RunEvent::kStarted:
      OnStarted(event.started());
      break;
    case v1::RunEvent::kSamples:
      OnSamples(event.samples());
      break;
    case v1::RunEvent::kVariantResult:
      OnVariantResult(event.variant_result());
      break;
    case v1::RunEvent::kSummary:
    case v1::RunEvent::EVENT_NOT_SET:
      Finish();
      break;
  }
}

void ProgressReporter::Finish() {
  if (open_line_length_ == 0) return;
  out_ << std::endl;
  open_line_length_ = 0;
}

void ProgressReporter::OnStarted(const v1::Started& started) {
  Finish();
  std::string variants;
  for (const std::string& variant : started.variants()) {
    variants += (variants.empty() ? "" : ",") + variant;
    counts_.emplace_back(variant, 0);
  }
  out_ << "started on " << started.backend() << " (" << started.device() << "), variants "
       << variants << std::endl;
  last_counts_write_ = clock_();
}

void ProgressReporter::OnSamples(const v1::SampleBatch& batch) {
  for (const v1::VariantSamples& samples : batch.variants()) {
    auto it = counts_.begin();
    while (it != counts_.end() && it->first != samples.variant()) ++it;
    if (it == counts_.end()) it = counts_.emplace(it, samples.variant(), 0);
    it->second = samples.total();
  }
  counts_changed_ = true;
  const auto now = clock_();
  if (now - last_counts_write_ >= (is_tty_ ? kTtyInterval : kLogInterval)) {
    WriteCounts();
  }
}

void ProgressReporter::OnVariantResult(const v1::VariantResult& result) {
  if (counts_changed_) WriteCounts();
  Finish();
  const v1::Verification& v = result.verification();
  out_ << result.variant() << ": " << (v.passed() ? "verified" : "FAILED verification")
       << " (rel err " << FormatScientific(v.rel_l2_error()) << ", tolerance "
       << FormatScientific(v.tolerance());
  if (v.non_finite() > 0) out_ << ", " << v.non_finite() << " non-finite";
  out_ << ")" << std::endl;
}

std::string ProgressReporter::CountsLine() const {
  std::string line = "samples:";
  for (size_t i = 0; i < counts_.size(); ++i) {
    line += (i == 0 ? " " : ", ") + counts_[i].first + " " + std::to_string(counts_[i].second);
  }
  return line;
}

void ProgressReporter::WriteCounts() {
  const std::string line = CountsLine();
  if (is_tty_) {
    // Pad with spaces over whatever the previous, longer line left.
    const size_t padding = open_line_length_ > line.size() ? open_line_length_ - line.size() : 0;
    out_ << '\r' << line << std::string(padding, ' ') << std::flush;
    open_line_length_ = line.size();
  } else {
    out_ << line << std::endl;
  }
  counts_changed_ = false;
  last_counts_write_ = clock_();
}

}  // namespace kbench::client
