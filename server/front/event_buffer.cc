#include "server/front/event_buffer.h"

#include <utility>

namespace kbench::server {
namespace {

// Appends `newer` to `into`: per variant, the times in order, the newer
// total, at most kMaxCoalescedTimes of the newest times.
void Merge(const v1::SampleBatch& newer, v1::SampleBatch& into) {
  for (const v1::VariantSamples& samples : newer.variants()) {
    v1::VariantSamples* target = nullptr;
    for (v1::VariantSamples& v : *into.mutable_variants())
      if (v.variant() == samples.variant()) target = &v;
    if (target == nullptr) {
      *into.add_variants() = samples;
      continue;
    }
    target->set_total(samples.total());
    target->mutable_ms()->MergeFrom(samples.ms());
    const int excess = target->ms_size() - EventBuffer::kMaxCoalescedTimes;
    if (excess > 0) {
      auto* ms = target->mutable_ms();
      ms->erase(ms->begin(), ms->begin() + excess);
    }
  }
}

}  // namespace

void EventBuffer::Push(v1::RunEvent event) {
  if (!events_.empty()) {
    v1::RunEvent& last = events_.back();
    if (event.has_queued() && last.has_queued()) {
      last = std::move(event);
      return;
    }
    if (event.has_samples() && last.has_samples()) {
      Merge(event.samples(), *last.mutable_samples());
      return;
    }
  }
  events_.push_back(std::move(event));
}

v1::RunEvent EventBuffer::Pop() {
  v1::RunEvent event = std::move(events_.front());
  events_.pop_front();
  return event;
}

}  // namespace kbench::server
