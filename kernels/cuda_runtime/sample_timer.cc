#include "kernels/cuda_runtime/sample_timer.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "kernels/common/status_macros.h"
#include "kernels/cuda_runtime/cuda_status.h"

namespace kbench::kernels::cuda_runtime {
namespace {

// Plain launches timed once to guess K before the first graph is built.
constexpr int kCalibrationLaunches = 8;
// Rebuilds of a graph whose replay came out shorter than kHotBatchMs.
constexpr int kMaxRebuilds = 3;

int LaunchesFor(double per_launch_ms) {
  if (!(per_launch_ms > 0)) return kMaxHotLaunches;
  return int(std::clamp(std::ceil(kHotBatchMs / per_launch_ms), 1.0, double(kMaxHotLaunches)));
}

}  // namespace

absl::StatusOr<SampleTimer> SampleTimer::Create(cudaStream_t stream, L2Flusher* flusher) {
  KBENCH_ASSIGN_OR_RETURN(EventPair events, EventPair::Create());
  const absl::StatusOr<KernelClock*> clock = KernelClock::Get();
  return SampleTimer(stream, flusher, std::move(events), clock.ok() ? *clock : nullptr,
                     clock.ok() ? "" : std::string(clock.status().message()));
}

absl::StatusOr<double> SampleTimer::Cold(Enqueue enqueue) {
  last_hot_key_ = kNoKey;
  KBENCH_RETURN_IF_ERROR(flusher_->Flush(stream_));
  if (clock_ != nullptr) {
    KBENCH_RETURN_IF_ERROR(clock_->Begin());
    const absl::Status enqueued = enqueue(stream_);
    absl::StatusOr<double> ms = clock_->End(stream_);  // disarms the clock either way
    KBENCH_RETURN_IF_ERROR(enqueued);
    return ms;
  }
  KBENCH_RETURN_IF_ERROR(events_.Start(stream_));
  KBENCH_RETURN_IF_ERROR(enqueue(stream_));
  KBENCH_RETURN_IF_ERROR(events_.Stop(stream_));
  return events_.ElapsedMs();
}

absl::StatusOr<double> SampleTimer::Hot(int key, Enqueue enqueue) {
  return TimeHot(key, nullptr, enqueue);
}

absl::StatusOr<double> SampleTimer::HotPoisoned(int key, Enqueue poison, Enqueue enqueue) {
  return TimeHot(key, &poison, enqueue);
}

absl::StatusOr<double> SampleTimer::TimeHot(int key, const Enqueue* poison, Enqueue enqueue) {
  // CUPTI, left attached by cold samples, would slow every launch timed here.
  if (clock_ != nullptr) KBENCH_RETURN_IF_ERROR(clock_->Release());
  // Another key's replay, a cold sample or other work came last: what it
  // left in the L2 goes first, so this key's sample meets caches warm with
  // its own work.
  const bool switched = last_hot_key_ != key;
  if (switched) KBENCH_RETURN_IF_ERROR(flusher_->Flush(stream_));
  last_hot_key_ = key;
  auto it = hot_.find(key);
  if (it == hot_.end()) {
    KBENCH_ASSIGN_OR_RETURN(HotGraph built, BuildHotGraph(poison, enqueue));
    it = hot_.emplace(key, std::move(built)).first;
  } else if (it->second.poisoned != (poison != nullptr)) {
    return absl::InternalError("SampleTimer: one key timed both hot and hot poisoned");
  } else if (!it->second.graph) {
    KBENCH_ASSIGN_OR_RETURN(it->second.graph, Capture(it->second, poison, enqueue));
    // The first replay uploads the graph, untimed, as in BuildHotGraph.
    KBENCH_RETURN_IF_ERROR(Replay(it->second).status());
  } else if (switched) {
    KBENCH_RETURN_IF_ERROR(Replay(it->second).status());
    ++warm_replays_;
  }
  KBENCH_ASSIGN_OR_RETURN(double ms, Replay(it->second));
  return ms / it->second.launches;
}

int SampleTimer::HotLaunches(int key) const {
  const auto it = hot_.find(key);
  return it == hot_.end() ? 0 : it->second.launches;
}

void SampleTimer::Recapture(int key) {
  const auto it = hot_.find(key);
  if (it != hot_.end()) it->second.graph = GraphExec();
}

absl::StatusOr<SampleTimer::HotGraph> SampleTimer::BuildHotGraph(const Enqueue* poison,
                                                                 Enqueue enqueue) {
  // One untimed run first: module load and first touch stay out of the guess.
  KBENCH_RETURN_IF_ERROR(enqueue(stream_));
  KBENCH_RETURN_IF_ERROR(events_.Start(stream_));
  for (int i = 0; i < kCalibrationLaunches; ++i) {
    KBENCH_RETURN_IF_ERROR(enqueue(stream_));
  }
  KBENCH_RETURN_IF_ERROR(events_.Stop(stream_));
  KBENCH_ASSIGN_OR_RETURN(double guess, events_.ElapsedMs());

  HotGraph hot;
  hot.poisoned = poison != nullptr;
  hot.launches = LaunchesFor(guess / kCalibrationLaunches);
  for (int rebuild = 0;; ++rebuild) {
    KBENCH_ASSIGN_OR_RETURN(GraphExec graph, Capture(hot, poison, enqueue));
    hot.graph = std::move(graph);
    // The first replay uploads the graph; the second is representative.
    KBENCH_RETURN_IF_ERROR(Replay(hot).status());
    KBENCH_ASSIGN_OR_RETURN(double ms, Replay(hot));
    if (ms >= kHotBatchMs || hot.launches >= kMaxHotLaunches || rebuild == kMaxRebuilds) return hot;
    hot.launches = LaunchesFor(ms / hot.launches / 1.1);
  }
}

absl::StatusOr<GraphExec> SampleTimer::Capture(const HotGraph& hot, const Enqueue* poison,
                                               Enqueue enqueue) {
  if (poison != nullptr) {
    while (run_events_.size() < size_t(hot.launches)) {
      KBENCH_ASSIGN_OR_RETURN(EventPair pair, EventPair::Create());
      run_events_.push_back(std::move(pair));
    }
  }
  return GraphExec::Capture(stream_, [&](cudaStream_t stream) -> absl::Status {
    if (poison == nullptr) KBENCH_RETURN_IF_ERROR(events_.Start(stream));
    for (int i = 0; i < hot.launches; ++i) {
      if (poison != nullptr) {
        KBENCH_RETURN_IF_ERROR((*poison)(stream));
        KBENCH_RETURN_IF_ERROR(run_events_[size_t(i)].Start(stream));
      }
      KBENCH_RETURN_IF_ERROR(enqueue(stream));
      if (poison != nullptr) KBENCH_RETURN_IF_ERROR(run_events_[size_t(i)].Stop(stream));
    }
    return poison == nullptr ? events_.Stop(stream) : absl::OkStatus();
  });
}

absl::StatusOr<double> SampleTimer::Replay(const HotGraph& hot) {
  KBENCH_RETURN_IF_ERROR(hot.graph.Launch(stream_));
  if (!hot.poisoned) return events_.ElapsedMs();
  double ms = 0;
  for (int i = 0; i < hot.launches; ++i) {
    KBENCH_ASSIGN_OR_RETURN(const double run_ms, run_events_[size_t(i)].ElapsedMs());
    ms += run_ms;
  }
  return ms;
}

std::string SampleTimer::HotMethod() const {
  return absl::StrFormat(
      "CUDA events around a CUDA graph of back-to-back launches lasting at "
      "least %.0f ms (at most %d launches), caches warm with the variant's own work "
      "(where another variant's replay or the run's untimed work, a check, came last, "
      "the L2 emptied and one untimed replay first); a sample is the graph's time divided by its "
      "launches",
      kHotBatchMs, kMaxHotLaunches);
}

std::string SampleTimer::HotPoisonedMethod() const {
  return absl::StrFormat(
      "CUDA events around each launch of a CUDA graph of launches lasting at "
      "least %.0f ms (at most %d launches), caches warm with the variant's own work "
      "(where another variant's replay or the run's untimed work, a check, came last, "
      "the L2 emptied and one untimed replay first), the output poisoned "
      "before every launch, outside its events; a sample is the launches' "
      "times summed, divided by their number",
      kHotBatchMs, kMaxHotLaunches);
}

std::string SampleTimer::ColdMethod() const {
  const std::string how =
      clock_ != nullptr
          ? "the kernels' own start and end times on the device (CUPTI), from the first start "
            "to the last end"
          : absl::StrCat("CUDA events around the kernel only (no kernel clock: ", no_clock_, ")");
  return absl::StrFormat(
      "%s; before each sample the L2 is "
      "emptied: a %d MiB buffer (twice the L2) read through it, then its lines discarded",
      how, flusher_->bytes() >> 20);
}

}  // namespace kbench::kernels::cuda_runtime
