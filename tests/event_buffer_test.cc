// The buffer of a Run stream's unread events: progress coalesces, results
// and the summary never do, and what it holds stays bounded however many
// samples the run takes.
#include "server/front/event_buffer.h"

#include <gtest/gtest.h>

#include <string>

namespace kbench::server {
namespace {

v1::RunEvent Batch(const std::string& variant, uint32_t total, int count) {
  v1::RunEvent event;
  v1::VariantSamples* samples = event.mutable_samples()->add_variants();
  samples->set_variant(variant);
  samples->set_total(total);
  for (int i = 0; i < count; ++i) samples->add_ms(double(total - count + i));
  return event;
}

v1::RunEvent Result(const std::string& variant) {
  v1::RunEvent event;
  event.mutable_variant_result()->set_variant(variant);
  return event;
}

TEST(EventBuffer, KeepsEventsInOrderForAReaderThatKeepsUp) {
  EventBuffer buffer;
  buffer.Push(Batch("naive", 3, 3));
  ASSERT_EQ(buffer.size(), 1u);
  const v1::RunEvent batch = buffer.Pop();
  EXPECT_EQ(batch.samples().variants(0).ms_size(), 3);
  buffer.Push(Batch("naive", 5, 2));
  EXPECT_EQ(buffer.Pop().samples().variants(0).total(), 5u);
  EXPECT_TRUE(buffer.empty());
}

TEST(EventBuffer, KeepsOnlyTheNewestQueuePosition) {
  EventBuffer buffer;
  for (uint32_t position : {5u, 4u, 3u}) {
    v1::RunEvent queued;
    queued.mutable_queued()->set_position(position);
    buffer.Push(queued);
  }
  ASSERT_EQ(buffer.size(), 1u);
  EXPECT_EQ(buffer.Pop().queued().position(), 3u);
}

TEST(EventBuffer, MergesWaitingBatchesKeepingTotalsAndTheNewestTimes) {
  EventBuffer buffer;
  v1::RunEvent started;
  started.mutable_started()->set_run_id("r");
  buffer.Push(started);
  // A million samples of each of two variants, never read.
  for (uint32_t total = 1000; total <= 1000000; total += 1000) {
    buffer.Push(Batch("naive", total, 1000));
    buffer.Push(Batch("fused", total, 1000));
  }
  ASSERT_EQ(buffer.size(), 2u);
  buffer.Pop();
  const v1::SampleBatch merged = buffer.Pop().samples();
  ASSERT_EQ(merged.variants_size(), 2);
  EXPECT_EQ(merged.variants(0).variant(), "naive");
  EXPECT_EQ(merged.variants(0).total(), 1000000u);
  ASSERT_EQ(merged.variants(0).ms_size(), EventBuffer::kMaxCoalescedTimes);
  // The newest times, in order: the last is sample 999999.
  EXPECT_EQ(merged.variants(0).ms(EventBuffer::kMaxCoalescedTimes - 1), 999999.0);
  EXPECT_EQ(merged.variants(0).ms(0), double(1000000 - EventBuffer::kMaxCoalescedTimes));
  EXPECT_EQ(merged.variants(1).total(), 1000000u);
}

TEST(EventBuffer, NeverCoalescesResultsOrTheSummary) {
  EventBuffer buffer;
  buffer.Push(Batch("naive", 10, 10));
  buffer.Push(Result("naive"));
  buffer.Push(Batch("naive", 11, 1));  // not merged across the result
  buffer.Push(Result("fused"));
  v1::RunEvent summary;
  summary.mutable_summary()->set_run_id("r");
  buffer.Push(summary);
  ASSERT_EQ(buffer.size(), 5u);
  EXPECT_TRUE(buffer.Pop().has_samples());
  EXPECT_EQ(buffer.Pop().variant_result().variant(), "naive");
  EXPECT_EQ(buffer.Pop().samples().variants(0).total(), 11u);
  EXPECT_EQ(buffer.Pop().variant_result().variant(), "fused");
  EXPECT_TRUE(buffer.Pop().has_summary());
}

}  // namespace
}  // namespace kbench::server
