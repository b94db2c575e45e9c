#include "server/front/reader_watch.h"

#include <utility>

namespace kbench::server {

ReaderWatch::ReaderWatch(Clock::duration period) : period_(period), thread_([this] { Loop(); }) {}

ReaderWatch::~ReaderWatch() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void ReaderWatch::Watch(std::weak_ptr<Watched> stream) {
  std::lock_guard lock(mu_);
  streams_.push_back(std::move(stream));
}

void ReaderWatch::Loop() {
  std::unique_lock lock(mu_);
  while (!wake_.wait_for(lock, period_, [this] { return stop_; })) {
    std::vector<std::weak_ptr<Watched>> streams = std::move(streams_);
    streams_.clear();
    lock.unlock();
    // Checked unlocked: a check may finish its RPC, whose callbacks may
    // start another stream (Watch).
    std::vector<std::weak_ptr<Watched>> kept;
    for (std::weak_ptr<Watched>& weak : streams)
      if (std::shared_ptr<Watched> stream = weak.lock();
          stream && stream->CheckReader(Clock::now()))
        kept.push_back(std::move(weak));
    lock.lock();
    streams_.insert(streams_.end(), kept.begin(), kept.end());
  }
}

}  // namespace kbench::server
