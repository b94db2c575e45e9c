// Turns Ctrl-C (SIGINT) and SIGTERM into the cancellation of the RPC in
// flight, so that the server stops the run instead of finishing it for
// nobody.
#pragma once

#include <grpcpp/client_context.h>

#include <atomic>
#include <mutex>
#include <thread>

namespace kbench::client {

// Construct one first thing in main(), before any other thread exists: the
// constructor blocks SIGINT and SIGTERM in the calling thread, so that every
// thread started later (gRPC's included) inherits the mask, and then starts
// one thread that takes the signals with sigwait(). On the first signal that
// thread sets interrupted() and calls TryCancel() on the watched context; it
// does this from a thread, not a signal handler, because TryCancel is not
// async-signal-safe. A second signal ends the process at once with exit code
// 130. The destructor stops and joins the thread; signals stay blocked.
// Every method may be called from any thread.
class InterruptWatcher {
 public:
  InterruptWatcher();
  ~InterruptWatcher();
  InterruptWatcher(const InterruptWatcher&) = delete;
  InterruptWatcher& operator=(const InterruptWatcher&) = delete;

  // While alive, a signal cancels `context`; if a signal came before, the
  // context is cancelled at once. At most one Watch at a time; `context`
  // must outlive it.
  class Watch {
   public:
    Watch(InterruptWatcher& watcher, grpc::ClientContext* context);
    ~Watch();
    Watch(const Watch&) = delete;
    Watch& operator=(const Watch&) = delete;

   private:
    InterruptWatcher& watcher_;
  };

  // True once SIGINT or SIGTERM arrived.
  bool interrupted() const { return interrupted_.load(); }

 private:
  void WaitForSignals();

  std::mutex mutex_;
  grpc::ClientContext* context_ = nullptr;  // Guarded by mutex_.
  std::atomic<bool> interrupted_{false};
  std::atomic<bool> stopping_{false};
  std::thread thread_;
};

}  // namespace kbench::client
