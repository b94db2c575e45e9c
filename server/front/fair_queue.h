// The scheduler's queue policy, without threads or devices: in which order
// waiting runs start, and when each is expected to start.
//
// Fair share: each user's share is the device time they used in a sliding
// window (kFairShareWindow), accounted from the runs this queue handed out
// (no store needed), plus the expected time of their runs running now. The
// next run is the oldest run of the user with the least share; among users
// of equal share, the one served least recently goes first (round-robin).
// A user's own runs start in the order they came. Priority tickets
// (instructors and admins) go ahead of every other ticket, and share fairly
// among themselves. Order() gives the whole order as if no run came or left,
// charging each placed run's expected time to its user, so that the
// positions it gives are the order in which PopNext takes the runs.
//
// Expected time of a run: its time budget times the ratio of measured wall
// time to budget over the recent completed runs of its op (1 until one
// completed). ETA of a waiting run: when a device frees up for it if the
// runs running now and the ones ahead take their expected time, each device
// taking the next run in order.
//
// Not thread-safe: the scheduler calls it under its lock. Times are steady
// clock points passed in, so tests can move time.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <vector>

namespace kbench::server {

using QueueClock = std::chrono::steady_clock;

// The sliding window over which device time counts against a user's share.
inline constexpr std::chrono::seconds kFairShareWindow{3600};

// Who a waiting run counts against, and what it may cost.
struct QueueTicket {
  // The user whose share the run uses; "" (the anonymous caller of a
  // server without identities) is one user like any other.
  std::string user;
  // Instructors and admins: ahead of every ticket without priority.
  bool priority = false;
  // The run's op, whose past runs calibrate the expected time.
  std::string op;
  // The run's sampling time budget, in seconds.
  double budget_seconds = 0;
};

// A waiting run's place: 0 starts next.
struct QueuePlace {
  uint64_t id = 0;
  uint32_t position = 0;
  double eta_seconds = 0;
};

class FairQueue {
 public:
  explicit FairQueue(QueueClock::duration window = kFairShareWindow);

  // Queues a run; returns its id (never 0).
  uint64_t Push(QueueTicket ticket);
  // Removes a waiting run; false when `id` is not waiting.
  bool Remove(uint64_t id);
  // Every waiting run's id, in no particular order.
  std::vector<uint64_t> WaitingIds() const;
  size_t waiting() const { return waiting_.size(); }

  // The waiting runs in the order they will start, with their ETA given
  // `devices` devices that can take runs.
  std::vector<QueuePlace> Order(QueueClock::time_point now, size_t devices) const;
  // Takes the first run of Order() (0 when none waits); it runs from `now`.
  uint64_t PopNext(QueueClock::time_point now);
  // A run that PopNext took ended after `wall_seconds`: charged to its user.
  // `completed`: it ran to its end, so its time calibrates its op's
  // expected time (a cancelled or failed run does not).
  void Finished(uint64_t id, double wall_seconds, bool completed, QueueClock::time_point now);

  // Device seconds `user` used in the window before `now` (runs ended).
  double UsedSeconds(const std::string& user, QueueClock::time_point now) const;
  // The expected wall time of a run of `ticket`, in seconds.
  double ExpectedSeconds(const QueueTicket& ticket) const;

 private:
  struct Waiting {
    QueueTicket ticket;
    uint64_t id;
  };
  struct Running {
    std::string user;
    std::string op;
    double budget_seconds;
    double expected_seconds;
    QueueClock::time_point start;
  };
  struct Used {
    std::string user;
    double seconds;
    QueueClock::time_point end;
  };

  // The waiting runs' indices into waiting_, in start order.
  std::vector<size_t> StartOrder(QueueClock::time_point now) const;

  const QueueClock::duration window_;
  uint64_t next_id_ = 1;
  std::vector<Waiting> waiting_;  // in arrival order
  std::map<uint64_t, Running> running_;
  mutable std::deque<Used> used_;  // ended runs, oldest first; pruned lazily
  // Per user: when they were last served (a PopNext counter; 0 never).
  std::map<std::string, uint64_t> last_served_;
  uint64_t serve_count_ = 0;
  // Per op: wall time / budget of its recent completed runs.
  std::map<std::string, std::deque<double>> ratios_;
};

}  // namespace kbench::server
