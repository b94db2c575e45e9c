// Finds Run streams whose client stopped reading: one thread that asks each
// watched stream, a few times per stall limit, whether its reader has
// stalled (RunCall::CheckReader cancels the run of one that has). Streams
// are held weakly and dropped once they say they are done. Thread-safe;
// the destructor joins the thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace kbench::server {

class ReaderWatch {
 public:
  using Clock = std::chrono::steady_clock;

  class Watched {
   public:
    virtual ~Watched() = default;
    // Acts on a stalled reader; false once the stream needs no more watching.
    virtual bool CheckReader(Clock::time_point now) = 0;
  };

  // Checks every stream each `period`.
  explicit ReaderWatch(Clock::duration period);
  ~ReaderWatch();
  ReaderWatch(const ReaderWatch&) = delete;
  ReaderWatch& operator=(const ReaderWatch&) = delete;

  void Watch(std::weak_ptr<Watched> stream);

 private:
  void Loop();

  const Clock::duration period_;
  std::mutex mu_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::vector<std::weak_ptr<Watched>> streams_;
  std::thread thread_;
};

}  // namespace kbench::server
