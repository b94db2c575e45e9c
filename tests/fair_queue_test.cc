// The queue policy: least device time used in the window first,
// round-robin among equals, priority tickets first, positions in the order
// runs start, and ETAs from the runs running and ahead, calibrated per op.
#include "server/front/fair_queue.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace kbench::server {
namespace {

using std::chrono::seconds;

const QueueClock::time_point kT0 = QueueClock::time_point() + std::chrono::hours(10);

QueueTicket Learner(const std::string& user, double budget = 1) {
  return {user, false, "op", budget};
}

// Runs one run of `user` that takes `wall` seconds, ending at `end`.
void Use(FairQueue& queue, const std::string& user, double wall, QueueClock::time_point end) {
  const uint64_t id = queue.Push(Learner(user));
  ASSERT_EQ(queue.PopNext(end), id);
  queue.Finished(id, wall, /*completed=*/false, end);
}

std::vector<uint64_t> Ids(const std::vector<QueuePlace>& places) {
  std::vector<uint64_t> ids;
  for (const QueuePlace& p : places) ids.push_back(p.id);
  return ids;
}

TEST(FairQueue, TheUserWhoUsedLeastDeviceTimeGoesFirst) {
  FairQueue queue;
  Use(queue, "ada", 10, kT0);
  Use(queue, "bob", 2, kT0);
  const uint64_t ada = queue.Push(Learner("ada"));
  const uint64_t bob = queue.Push(Learner("bob"));
  const uint64_t cyd = queue.Push(Learner("cyd"));
  EXPECT_EQ(Ids(queue.Order(kT0, 1)), (std::vector<uint64_t>{cyd, bob, ada}));
  EXPECT_DOUBLE_EQ(queue.UsedSeconds("ada", kT0), 10);
}

TEST(FairQueue, UsersOfEqualShareTakeTurns) {
  FairQueue queue;
  std::vector<uint64_t> ada, bob;
  for (int i = 0; i < 3; ++i) ada.push_back(queue.Push(Learner("ada")));
  for (int i = 0; i < 3; ++i) bob.push_back(queue.Push(Learner("bob")));
  EXPECT_EQ(Ids(queue.Order(kT0, 1)),
            (std::vector<uint64_t>{ada[0], bob[0], ada[1], bob[1], ada[2], bob[2]}));
}

TEST(FairQueue, AUsersOwnRunsStartInTheOrderTheyCame) {
  FairQueue queue;
  const uint64_t first = queue.Push(Learner("ada", 5));
  const uint64_t second = queue.Push(Learner("ada", 1));
  EXPECT_EQ(Ids(queue.Order(kT0, 1)), (std::vector<uint64_t>{first, second}));
}

TEST(FairQueue, TimeOutsideTheWindowNoLongerCounts) {
  FairQueue queue(seconds(3600));
  Use(queue, "ada", 100, kT0);
  Use(queue, "bob", 1, kT0 + seconds(3000));
  // A run that straddles the window's start counts for its part inside.
  EXPECT_DOUBLE_EQ(queue.UsedSeconds("ada", kT0 + seconds(3550)), 50);
  const QueueClock::time_point later = kT0 + seconds(3650);
  EXPECT_DOUBLE_EQ(queue.UsedSeconds("ada", later), 0);
  EXPECT_DOUBLE_EQ(queue.UsedSeconds("bob", later), 1);
  const uint64_t bob = queue.Push(Learner("bob"));
  const uint64_t ada = queue.Push(Learner("ada"));
  EXPECT_EQ(Ids(queue.Order(later, 1)), (std::vector<uint64_t>{ada, bob}));
}

TEST(FairQueue, ARunningRunCountsAgainstItsUser) {
  FairQueue queue;
  const uint64_t running = queue.Push(Learner("ada"));
  ASSERT_EQ(queue.PopNext(kT0), running);
  const uint64_t ada = queue.Push(Learner("ada"));
  const uint64_t bob = queue.Push(Learner("bob"));
  EXPECT_EQ(Ids(queue.Order(kT0, 1)), (std::vector<uint64_t>{bob, ada}));
}

TEST(FairQueue, PriorityTicketsGoAheadOfLearners) {
  FairQueue queue;
  const uint64_t ada = queue.Push(Learner("ada"));
  const uint64_t bob = queue.Push(Learner("bob"));
  const uint64_t teacher = queue.Push({"tess", true, "op", 1});
  EXPECT_EQ(Ids(queue.Order(kT0, 1)), (std::vector<uint64_t>{teacher, ada, bob}));
}

TEST(FairQueue, RunsStartInTheOrderThePositionsSaid) {
  FairQueue queue;
  for (const char* user : {"ada", "ada", "ada", "bob", "cyd", "bob"}) queue.Push(Learner(user));
  const std::vector<QueuePlace> places = queue.Order(kT0, 1);
  for (uint32_t i = 0; i < places.size(); ++i) EXPECT_EQ(places[i].position, i);
  std::vector<uint64_t> popped;
  for (uint64_t id; (id = queue.PopNext(kT0)) != 0;) popped.push_back(id);
  EXPECT_EQ(popped, Ids(places));
}

TEST(FairQueue, RemovedRunsLeaveTheOrder) {
  FairQueue queue;
  const uint64_t ada = queue.Push(Learner("ada"));
  const uint64_t bob = queue.Push(Learner("bob"));
  EXPECT_TRUE(queue.Remove(ada));
  EXPECT_FALSE(queue.Remove(ada));
  EXPECT_EQ(Ids(queue.Order(kT0, 1)), (std::vector<uint64_t>{bob}));
  EXPECT_EQ(queue.waiting(), 1u);
}

TEST(FairQueue, EtaAddsTheRunningRemainderAndTheRunsAhead) {
  FairQueue queue;
  const uint64_t running = queue.Push(Learner("ada", 2));
  ASSERT_EQ(queue.PopNext(kT0), running);
  queue.Push(Learner("bob", 1));
  queue.Push(Learner("cyd", 3));
  queue.Push(Learner("dan", 1));
  const auto half_second = kT0 + std::chrono::milliseconds(500);
  const std::vector<QueuePlace> one = queue.Order(half_second, 1);
  ASSERT_EQ(one.size(), 3u);
  EXPECT_DOUBLE_EQ(one[0].eta_seconds, 1.5);  // 2 s expected, 0.5 s gone
  EXPECT_DOUBLE_EQ(one[1].eta_seconds, 2.5);
  EXPECT_DOUBLE_EQ(one[2].eta_seconds, 5.5);
  // Two devices: the second is free now, and each run takes the first free.
  const std::vector<QueuePlace> two = queue.Order(half_second, 2);
  EXPECT_DOUBLE_EQ(two[0].eta_seconds, 0);
  EXPECT_DOUBLE_EQ(two[1].eta_seconds, 1);
  EXPECT_DOUBLE_EQ(two[2].eta_seconds, 1.5);
}

TEST(FairQueue, CompletedRunsCalibrateTheirOpsExpectedTime) {
  FairQueue queue;
  EXPECT_DOUBLE_EQ(queue.ExpectedSeconds({"ada", false, "attention", 4}), 4);
  for (const double wall : {3.0, 6.0}) {
    const uint64_t id = queue.Push({"ada", false, "attention", 2});
    ASSERT_EQ(queue.PopNext(kT0), id);
    queue.Finished(id, wall, /*completed=*/true, kT0);
  }
  // Measured 1.5x and 3x the budget: 2.25x on average.
  EXPECT_DOUBLE_EQ(queue.ExpectedSeconds({"bob", false, "attention", 4}), 9);
  // Another op is not calibrated by them, nor is a run that did not complete.
  EXPECT_DOUBLE_EQ(queue.ExpectedSeconds({"bob", false, "vector_add", 4}), 4);
  const uint64_t cancelled = queue.Push({"ada", false, "attention", 2});
  ASSERT_EQ(queue.PopNext(kT0), cancelled);
  queue.Finished(cancelled, 0.01, /*completed=*/false, kT0);
  EXPECT_DOUBLE_EQ(queue.ExpectedSeconds({"bob", false, "attention", 4}), 9);
}

}  // namespace
}  // namespace kbench::server
