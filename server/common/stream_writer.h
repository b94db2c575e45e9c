// The writing half of a server-streaming RPC, written once for every
// stream the servers send (the front's Run streams, the worker's Execute
// streams): producers queue events from any thread, and the writer keeps at
// most one write in flight (StartWrite, then the next from OnWriteDone),
// writes in order, and finishes once, after the last queued event is
// written (as gRPC's route_guide callback example does).
//
// The queue's type decides what waits and so bounds it: a Queue has
// Push(Event), Pop() -> Event (never called when empty), empty() and
// Clear(); it is only used under the writer's lock. FifoQueue keeps every
// event; the front's EventBuffer coalesces progress for a slow reader.
//
// Lifetime: the reactor (NewReactor) is owned by gRPC and holds a
// shared_ptr to the writer until OnDone; producers hold others. Once the
// RPC is done the writer drops what is written to it.
//
// Subclasses react to the client through OnWriteFailed, OnCancel and
// OnDone, called on gRPC's threads without the writer's lock: they must
// not block, and may call any method of the writer.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>

#include "absl/status/status.h"
#include "grpcpp/grpcpp.h"
#include "server/common/status_mapping.h"

namespace kbench::server {

// Every event, in order.
template <typename Event>
class FifoQueue {
 public:
  void Push(Event event) { events_.push_back(std::move(event)); }
  Event Pop() {
    Event event = std::move(events_.front());
    events_.pop_front();
    return event;
  }
  bool empty() const { return events_.empty(); }
  void Clear() { events_.clear(); }

 private:
  std::deque<Event> events_;
};

template <typename Event, typename Queue = FifoQueue<Event>>
class StreamWriter {
 public:
  using Clock = std::chrono::steady_clock;

  // A consistent view of the writer, for checks that read several parts.
  struct State {
    // The first Finish's status; none before it.
    std::optional<absl::Status> ended;
    // The finish went to gRPC, or the RPC is done: nothing more is written.
    bool closed = false;
    // When the write in flight started; none when no write is in flight.
    std::optional<Clock::time_point> write_started;
  };

  virtual ~StreamWriter() = default;

  // The reactor that writes `writer`'s events for one RPC; the RPC's
  // handler returns it. Events written before it exists are dropped.
  static grpc::ServerWriteReactor<Event>* NewReactor(std::shared_ptr<StreamWriter> writer) {
    return new Reactor(std::move(writer));
  }

  // Queues `event` to be written after those queued before it. Dropped
  // (false) once Finish was called or the RPC is done.
  bool Write(Event event) {
    std::unique_lock lock(mu_);
    if (ended_ || closed_ || reactor_ == nullptr) return false;
    queue_.Push(std::move(event));
    Pump(lock);
    return true;
  }

  // Ends the RPC with `status` once everything queued is written; nothing
  // is queued after it. The first call wins (later ones return false) and
  // runs `before_send` first, outside the lock: what it does happens
  // before the client can see the end.
  bool Finish(const absl::Status& status, const std::function<void()>& before_send = {}) {
    std::unique_lock lock(mu_);
    if (ended_) return false;
    ended_ = status;
    if (before_send) {
      lock.unlock();
      before_send();
      lock.lock();
    }
    finish_released_ = true;
    Pump(lock);
    return true;
  }

  // Ends the RPC with `status` now, even with a write in flight (one that
  // a reader stopped reading), dropping what waits; the first Finish's
  // status stays what State().ended says. False when already closed.
  bool FinishNow(const absl::Status& status) {
    std::unique_lock lock(mu_);
    if (closed_ || reactor_ == nullptr) return false;
    if (!ended_) ended_ = status;
    closed_ = true;
    queue_.Clear();
    Reactor* reactor = reactor_;
    lock.unlock();
    reactor->Finish(ToGrpcStatus(status));
    return true;
  }

  // Drops every queued event that is not yet being written.
  void Drop() {
    std::lock_guard lock(mu_);
    queue_.Clear();
  }

  State state() const {
    std::lock_guard lock(mu_);
    State state{ended_, closed_ || reactor_ == nullptr, std::nullopt};
    if (write_in_flight_) state.write_started = write_started_;
    return state;
  }

  // Waits until gRPC is done with the RPC (OnDone), at most `timeout`; true
  // if it is.
  bool WaitDone(std::chrono::milliseconds timeout) {
    std::unique_lock lock(mu_);
    return done_cv_.wait_for(lock, timeout, [&] { return done_; });
  }

 protected:
  // A write failed: the stream broke, the client is gone. What waited is
  // already dropped; the RPC still needs a Finish.
  virtual void OnWriteFailed() {}
  // The client cancelled the RPC; it still needs a Finish.
  virtual void OnCancel() {}
  // gRPC is done with the RPC.
  virtual void OnDone() {}

 private:
  class Reactor final : public grpc::ServerWriteReactor<Event> {
   public:
    explicit Reactor(std::shared_ptr<StreamWriter> writer) : writer_(std::move(writer)) {
      std::lock_guard lock(writer_->mu_);
      writer_->reactor_ = this;
    }
    void OnWriteDone(bool ok) override { writer_->WriteDone(ok); }
    void OnCancel() override { writer_->OnCancel(); }
    void OnDone() override {
      writer_->Detach();
      delete this;
    }

   private:
    const std::shared_ptr<StreamWriter> writer_;
  };

  void WriteDone(bool ok) {
    std::unique_lock lock(mu_);
    write_in_flight_ = false;
    if (ok) {
      Pump(lock);
      return;
    }
    queue_.Clear();
    lock.unlock();
    OnWriteFailed();
    lock.lock();
    Pump(lock);
  }

  void Detach() {
    {
      std::lock_guard lock(mu_);
      reactor_ = nullptr;
      done_ = true;
    }
    done_cv_.notify_all();
    OnDone();
  }

  // Starts the next write, or the finish once nothing is left; unlocks.
  void Pump(std::unique_lock<std::mutex>& lock) {
    if (write_in_flight_ || closed_ || reactor_ == nullptr) return;
    Reactor* reactor = reactor_;
    if (!queue_.empty()) {
      current_ = queue_.Pop();
      write_in_flight_ = true;
      write_started_ = Clock::now();
      lock.unlock();
      // Safe unlocked: OnDone cannot come before Finish, and Finish waits
      // for this write.
      reactor->StartWrite(&current_);
      return;
    }
    if (!ended_ || !finish_released_) return;
    closed_ = true;
    const grpc::Status status = ToGrpcStatus(*ended_);
    lock.unlock();
    reactor->Finish(status);
  }

  mutable std::mutex mu_;
  std::condition_variable done_cv_;
  Reactor* reactor_ = nullptr;
  Queue queue_;
  Event current_;  // the event being written
  bool write_in_flight_ = false;
  Clock::time_point write_started_;
  std::optional<absl::Status> ended_;
  bool finish_released_ = false;  // before_send has returned
  bool closed_ = false;           // the finish went to gRPC
  bool done_ = false;             // OnDone came
};

}  // namespace kbench::server
