// Runs a program as a child process with its output captured, for tests that
// drive binaries end to end (POSIX). Header-only: tests include it directly.
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace kbench::testing {

// One child process. stdin is /dev/null; stdout is captured; stderr is
// captured too, or left to the test's own stderr (for a long-lived server
// whose log nobody drains). The pipes are close-on-exec, so children started
// later do not hold them open. Not thread-safe.
class ChildProcess {
 public:
  using Millis = std::chrono::milliseconds;

  // Starts argv[0], a path, with the arguments argv[1..].
  explicit ChildProcess(const std::vector<std::string>& argv, bool capture_stderr = true) {
    int out_pipe[2];
    int err_pipe[2] = {-1, -1};
    if (pipe2(out_pipe, O_CLOEXEC) != 0 || (capture_stderr && pipe2(err_pipe, O_CLOEXEC) != 0)) {
      throw std::runtime_error("pipe2 failed");
    }
    // Built before fork: after it, the child only makes async-signal-safe
    // calls.
    std::vector<char*> args;
    for (const std::string& arg : argv) {
      args.push_back(const_cast<char*>(arg.c_str()));
    }
    args.push_back(nullptr);
    pid_ = fork();
    if (pid_ < 0) throw std::runtime_error("fork failed");
    if (pid_ == 0) {
      const int null_fd = open("/dev/null", O_RDONLY);
      dup2(null_fd, STDIN_FILENO);
      dup2(out_pipe[1], STDOUT_FILENO);
      if (capture_stderr) dup2(err_pipe[1], STDERR_FILENO);
      execv(args[0], args.data());
      _exit(127);
    }
    close(out_pipe[1]);
    out_fd_ = out_pipe[0];
    if (capture_stderr) {
      close(err_pipe[1]);
      err_fd_ = err_pipe[0];
    }
  }

  ~ChildProcess() {
    if (!exit_code_) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    if (out_fd_ >= 0) close(out_fd_);
    if (err_fd_ >= 0) close(err_fd_);
  }

  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  // Reads output until stdout (or stderr, if `from_stderr`) holds `text`.
  // False if the timeout passed or both pipes closed first.
  bool WaitForOutput(std::string_view text, Millis timeout, bool from_stderr = false) {
    const auto give_up = std::chrono::steady_clock::now() + timeout;
    const std::string& where = from_stderr ? err_ : out_;
    while (where.find(text) == std::string::npos) {
      const auto left = give_up - std::chrono::steady_clock::now();
      if (left <= Millis(0) || (out_fd_ < 0 && err_fd_ < 0)) return false;
      Pump(std::chrono::duration_cast<Millis>(left));
    }
    return true;
  }

  void Signal(int signal) { kill(pid_, signal); }
  pid_t pid() const { return pid_; }

  // Reads the rest of the output and reaps the child. Returns its exit code,
  // 128 + the signal that killed it, or nullopt if it did not end within
  // `timeout` (it is then killed by the destructor).
  std::optional<int> Wait(Millis timeout) {
    const auto give_up = std::chrono::steady_clock::now() + timeout;
    while (!exit_code_) {
      const auto left = give_up - std::chrono::steady_clock::now();
      if (left <= Millis(0)) return std::nullopt;
      if (out_fd_ >= 0 || err_fd_ >= 0) {
        Pump(std::min(Millis(100), std::chrono::duration_cast<Millis>(left)));
      } else {
        std::this_thread::sleep_for(Millis(10));
      }
      int status = 0;
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        while (out_fd_ >= 0 || err_fd_ >= 0) Pump(Millis(100));
        exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      }
    }
    return exit_code_;
  }

  const std::string& out() const { return out_; }
  const std::string& err() const { return err_; }

 private:
  // Waits up to `timeout` for output and appends what is there; closes a
  // pipe at its end of file.
  void Pump(Millis timeout) {
    pollfd fds[2] = {{out_fd_, POLLIN, 0}, {err_fd_, POLLIN, 0}};
    if (poll(fds, 2, static_cast<int>(timeout.count())) <= 0) return;
    ReadFrom(fds[0], out_fd_, out_);
    ReadFrom(fds[1], err_fd_, err_);
  }

  static void ReadFrom(const pollfd& fd, int& owned_fd, std::string& text) {
    if (owned_fd < 0 || fd.revents == 0) return;
    char buffer[4096];
    const ssize_t n = read(owned_fd, buffer, sizeof(buffer));
    if (n > 0) {
      text.append(buffer, static_cast<size_t>(n));
    } else {
      close(owned_fd);
      owned_fd = -1;
    }
  }

  pid_t pid_ = -1;
  int out_fd_ = -1;
  int err_fd_ = -1;
  std::string out_;
  std::string err_;
  std::optional<int> exit_code_;
};

struct ProcessResult {
  int exit_code = -1;  // -1: it did not end in time
  std::string out;
  std::string err;
};

// Runs argv to completion, or for at most `timeout`.
inline ProcessResult RunProcess(const std::vector<std::string>& argv,
                                std::chrono::milliseconds timeout) {
  ChildProcess child(argv);
  const std::optional<int> exit_code = child.Wait(timeout);
  return {exit_code.value_or(-1), child.out(), child.err()};
}

}  // namespace kbench::testing
