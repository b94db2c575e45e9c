// SampleTimer: how every CUDA op and tool takes one timed sample (DESIGN.md,
// Measurement). The work of a sample is given as a callback that enqueues one
// run on a stream without waiting.
//   COLD: the L2 is flushed (L2Flusher), then the work; the sample is the
//         span of the work on the device, from its first kernel's start to
//         its last one's end, by the device's own times (KernelClock, from
//         CUPTI), so it covers the kernel(s) alone. Where CUPTI cannot trace
//         (another profiler holds it), a start event, the work and a stop
//         event instead, which also span the launch's start on the device
//         (about 1.3 us more on an H100); ColdMethod() says which.
//   HOT:  (CUPTI, left attached by cold samples, released first) a CUDA
//         graph of K back-to-back runs between a start and a stop
//         event (recorded inside the graph, so the graph's launch latency is
//         outside them), with K chosen once per key so a replay lasts at
//         least kHotBatchMs; the sample is the replay's time / K, with caches
//         warm and launch gaps as small as the device makes them. Warm
//         means warm with the key's own work: where the replay before was
//         another key's (two variants alternate), a cold sample, or other
//         work on the device came since (OtherWorkRan: a check's
//         comparison, a poison, new inputs), the L2 is emptied (L2Flusher)
//         and one untimed replay of the key's graph comes first
//         (WarmReplays counts them; a graph's first build replays it
//         anyway). Without it what ran before stays in the L2: vectorized
//         vector add at n = 2^22 (streaming hints, whose evict-first lines
//         do not displace plain ones) took 16.6 us a launch after naive's
//         replays and 13.8 us with the L2 emptied and one warm replay
//         first, on an H100; run alone, after its first round's check (a
//         comparison reading the output and the reference), 15.3 us
//         before checks counted as other work, 13.6 us after, as beside
//         naive (float2 streaming kernel, 2026-12-07).
//   HOT, POISONED (HotPoisoned; a run with a learner's kernel, where no
//         timed launch may meet an earlier launch's output): the same K
//         runs in one graph, each preceded by `poison` (which rewrites the
//         output) and bracketed by events of its own; the sample is the sum
//         of the K runs' times / K, the poisons outside it. Caches are as
//         warm, but the output has just been rewritten before every run.
// Ownership: the stream and the flusher are borrowed and must outlive the
// timer. The hot graphs capture whatever buffers `enqueue` touches, so a timer
// belongs to one set of buffers (one workload) and must not outlive them.
// Threading: one thread at a time.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "kernels/cuda_runtime/cuda_graph.h"
#include "kernels/cuda_runtime/event_pair.h"
#include "kernels/cuda_runtime/kernel_clock.h"
#include "kernels/cuda_runtime/l2_flusher.h"

namespace kbench::kernels::cuda_runtime {

using Enqueue = absl::FunctionRef<absl::Status(cudaStream_t)>;

inline constexpr double kHotBatchMs = 1.0;
inline constexpr int kMaxHotLaunches = 4096;

class SampleTimer {
 public:
  static absl::StatusOr<SampleTimer> Create(cudaStream_t stream, L2Flusher* flusher);

  absl::StatusOr<double> Cold(Enqueue enqueue);
  // `key` names the work (a variant's index): its graph is built on the
  // first call and replayed after.
  absl::StatusOr<double> Hot(int key, Enqueue enqueue);
  // As Hot, with `poison` before each run, outside its events. A key is
  // timed one way for its life: Hot or HotPoisoned.
  absl::StatusOr<double> HotPoisoned(int key, Enqueue poison, Enqueue enqueue);
  // Back-to-back runs in the graph of `key`; 0 before its first Hot().
  int HotLaunches(int key) const;
  // Destroys the graph of `key` now, keeping its number of runs: the work
  // it captured changed (a learner's module was loaded again, so the
  // function it launched is gone). The next Hot(key) captures `enqueue`
  // again with as many runs, uploads it with an untimed replay, then times
  // a replay as before. No effect before the first Hot(key).
  void Recapture(int key);
  // Work other than this timer's ran on the device since its last sample
  // (the caller's untimed work): the next Hot() or HotPoisoned() empties
  // the L2 and replays once untimed first, as after another key's replay.
  void OtherWorkRan() { last_hot_key_ = kNoKey; }
  // Untimed replays made because another key's replay, a cold sample or
  // other work came last (a build's own replays not counted).
  int WarmReplays() const { return warm_replays_; }

  // How Cold() and Hot() measure, in words for a result's reader.
  std::string ColdMethod() const;
  std::string HotMethod() const;
  std::string HotPoisonedMethod() const;

 private:
  struct HotGraph {
    GraphExec graph;  // empty after Recapture, until the next Hot()
    int launches = 0;
    bool poisoned = false;  // each run after a poison, between events of its own
  };

  SampleTimer(cudaStream_t stream, L2Flusher* flusher, EventPair events, KernelClock* clock,
              std::string no_clock)
      : stream_(stream),
        flusher_(flusher),
        events_(std::move(events)),
        clock_(clock),
        no_clock_(std::move(no_clock)) {}
  // `poison` null: Hot's graph; else HotPoisoned's.
  absl::StatusOr<double> TimeHot(int key, const Enqueue* poison, Enqueue enqueue);
  absl::StatusOr<HotGraph> BuildHotGraph(const Enqueue* poison, Enqueue enqueue);
  absl::StatusOr<GraphExec> Capture(const HotGraph& hot, const Enqueue* poison, Enqueue enqueue);
  // Replays `hot` and returns the device time of its K runs together.
  absl::StatusOr<double> Replay(const HotGraph& hot);

  cudaStream_t stream_;
  L2Flusher* flusher_;
  EventPair events_;
  KernelClock* clock_;    // null where CUPTI cannot trace: cold samples by events
  std::string no_clock_;  // why, when clock_ is null
  // HotPoisoned's events, one pair a run, shared by every key's graph
  // (replays never overlap); grown to the largest K.
  std::vector<EventPair> run_events_;
  std::map<int, HotGraph> hot_;
  // The key whose graph replayed last with nothing run since; kNoKey after
  // a cold sample or OtherWorkRan.
  static constexpr int kNoKey = -1;
  int last_hot_key_ = kNoKey;
  int warm_replays_ = 0;
};

}  // namespace kbench::kernels::cuda_runtime
