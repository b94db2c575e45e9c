// The events of one Run stream that wait for its client to read them,
// bounded whatever the client does. Progress is coalesced as it queues: a
// Queued event replaces a Queued waiting last, and a SampleBatch merges
// into a SampleBatch waiting last (each variant's times appended, its total
// taken from the newer batch, the oldest times dropped past
// kMaxCoalescedTimes per variant). Started, every VariantResult and the
// Summary are kept as they are. A run emits at most one Started, one result
// per variant and one Summary, and never two progress events of one kind
// without another event between them once coalesced, so the buffer holds
// at most a handful of events and kMaxCoalescedTimes times per variant.
// A reader that keeps up sees every event unchanged. Not thread-safe: the
// owner (RunCall) locks.
#pragma once

#include <cstddef>
#include <deque>

#include "kbench/v1/kbench.pb.h"

namespace kbench::server {

class EventBuffer {
 public:
  // Times kept per variant in a coalesced SampleBatch.
  static constexpr int kMaxCoalescedTimes = 4096;

  void Push(v1::RunEvent event);
  bool empty() const { return events_.empty(); }
  size_t size() const { return events_.size(); }
  // The oldest event; the buffer must not be empty.
  v1::RunEvent Pop();
  void Clear() { events_.clear(); }

 private:
  std::deque<v1::RunEvent> events_;
};

}  // namespace kbench::server
