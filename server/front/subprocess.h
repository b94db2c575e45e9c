// A child process of the front, with its exit watched. Started with
// posix_spawn (fork + exec without running fork handlers in this threaded
// process): stdin and stdout are /dev/null, stderr is the front's (its log),
// every signal is unblocked and at its default action (the front blocks
// SIGINT and SIGTERM for its own sigwait).
//
// A watcher thread waits for the exit, reaps the child and then calls
// `exited` with the wait status. The child is reaped under the same lock
// that Signal takes, so a signal never reaches a later process that reuses
// the pid.
//
// Threading: every method from any thread. The destructor kills (SIGKILL) a
// child still running, reaps it and joins the watcher; `exited` must not
// destroy the Subprocess.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"

namespace kbench::server {

class Subprocess {
 public:
  // Starts argv[0], a path, with the arguments argv[1..].
  static absl::StatusOr<std::unique_ptr<Subprocess>> Spawn(const std::vector<std::string>& argv,
                                                           std::function<void(int)> exited);
  ~Subprocess();

  Subprocess(const Subprocess&) = delete;
  Subprocess& operator=(const Subprocess&) = delete;

  pid_t pid() const { return pid_; }
  // Sends `signal` unless the child has exited; true if sent.
  bool Signal(int signal);
  // The wait status (waitpid) once the child has exited.
  std::optional<int> ExitStatus() const;
  // Waits at most `timeout` for the exit; true if the child has exited.
  bool WaitForExit(std::chrono::milliseconds timeout);

 private:
  Subprocess(pid_t pid, std::function<void(int)> exited);
  void Watch();

  const pid_t pid_;
  const std::function<void(int)> exited_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::optional<int> status_;
  std::thread watcher_;
};

// "exited with status 7", "exited on signal 9 (SIGKILL)".
std::string DescribeWaitStatus(int status);

}  // namespace kbench::server
