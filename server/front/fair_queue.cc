#include "server/front/fair_queue.h"

#include <algorithm>
#include <functional>
#include <numeric>
#include <queue>
#include <tuple>
#include <utility>

namespace kbench::server {
namespace {

// Completed runs per op that calibrate its expected time.
constexpr size_t kCalibrationRuns = 20;

double Seconds(QueueClock::duration d) { return std::chrono::duration<double>(d).count(); }

}  // namespace

FairQueue::FairQueue(QueueClock::duration window) : window_(window) {}

uint64_t FairQueue::Push(QueueTicket ticket) {
  const uint64_t id = next_id_++;
  waiting_.push_back({std::move(ticket), id});
  return id;
}

bool FairQueue::Remove(uint64_t id) {
  const auto it =
      std::find_if(waiting_.begin(), waiting_.end(), [&](const Waiting& w) { return w.id == id; });
  if (it == waiting_.end()) return false;
  waiting_.erase(it);
  return true;
}

std::vector<uint64_t> FairQueue::WaitingIds() const {
  std::vector<uint64_t> ids;
  for (const Waiting& w : waiting_) ids.push_back(w.id);
  return ids;
}

double FairQueue::UsedSeconds(const std::string& user, QueueClock::time_point now) const {
  const QueueClock::time_point since = now - window_;
  while (!used_.empty() && used_.front().end <= since) used_.pop_front();
  double seconds = 0;
  for (const Used& u : used_)
    if (u.user == user) seconds += std::min(u.seconds, Seconds(u.end - since));
  return seconds;
}

double FairQueue::ExpectedSeconds(const QueueTicket& ticket) const {
  const auto it = ratios_.find(ticket.op);
  const double ratio =
      it == ratios_.end() || it->second.empty()
          ? 1.0
          : std::accumulate(it->second.begin(), it->second.end(), 0.0) / it->second.size();
  return std::max(0.0, ratio * ticket.budget_seconds);
}

std::vector<size_t> FairQueue::StartOrder(QueueClock::time_point now) const {
  // Each user's share: used in the window plus what their running runs
  // are expected to take (or have taken, if longer).
  std::map<std::string, double> share;
  std::map<std::string, uint64_t> served = last_served_;
  uint64_t serve_count = serve_count_;
  for (const Waiting& w : waiting_)
    if (!share.count(w.ticket.user)) share[w.ticket.user] = UsedSeconds(w.ticket.user, now);
  for (const auto& [id, r] : running_)
    if (share.count(r.user)) share[r.user] += std::max(r.expected_seconds, Seconds(now - r.start));

  std::vector<size_t> order;
  order.reserve(waiting_.size());
  for (const bool priority : {true, false}) {
    // Each user's runs of this class, oldest first.
    std::map<std::string, std::deque<size_t>> runs;
    for (size_t i = 0; i < waiting_.size(); ++i)
      if (waiting_[i].ticket.priority == priority) runs[waiting_[i].ticket.user].push_back(i);
    while (!runs.empty()) {
      auto next = runs.begin();
      for (auto it = std::next(runs.begin()); it != runs.end(); ++it) {
        const auto key = [&](const auto& entry) {
          return std::make_tuple(share[entry.first], served[entry.first], entry.second.front());
        };
        if (key(*it) < key(*next)) next = it;
      }
      const size_t i = next->second.front();
      order.push_back(i);
      share[next->first] += ExpectedSeconds(waiting_[i].ticket);
      served[next->first] = ++serve_count;
      next->second.pop_front();
      if (next->second.empty()) runs.erase(next);
    }
  }
  return order;
}

std::vector<QueuePlace> FairQueue::Order(QueueClock::time_point now, size_t devices) const {
  // When each device is expected to be free, soonest first.
  std::priority_queue<double, std::vector<double>, std::greater<double>> free_at;
  for (const auto& [id, r] : running_)
    free_at.push(std::max(0.0, r.expected_seconds - Seconds(now - r.start)));
  while (free_at.size() < std::max<size_t>(devices, 1)) free_at.push(0);

  std::vector<QueuePlace> places;
  for (const size_t i : StartOrder(now)) {
    const double start = free_at.top();
    free_at.pop();
    places.push_back({waiting_[i].id, uint32_t(places.size()), start});
    free_at.push(start + ExpectedSeconds(waiting_[i].ticket));
  }
  return places;
}

uint64_t FairQueue::PopNext(QueueClock::time_point now) {
  const std::vector<size_t> order = StartOrder(now);
  if (order.empty()) return 0;
  const Waiting next = waiting_[order.front()];
  waiting_.erase(waiting_.begin() + order.front());
  running_[next.id] = {next.ticket.user, next.ticket.op, next.ticket.budget_seconds,
                       ExpectedSeconds(next.ticket), now};
  last_served_[next.ticket.user] = ++serve_count_;
  return next.id;
}

void FairQueue::Finished(uint64_t id, double wall_seconds, bool completed,
                         QueueClock::time_point now) {
  const auto it = running_.find(id);
  if (it == running_.end()) return;
  used_.push_back({it->second.user, wall_seconds, now});
  if (completed && it->second.budget_seconds > 0) {
    std::deque<double>& ratios = ratios_[it->second.op];
    ratios.push_back(wall_seconds / it->second.budget_seconds);
    if (ratios.size() > kCalibrationRuns) ratios.pop_front();
  }
  running_.erase(it);
}

}  // namespace kbench::server
