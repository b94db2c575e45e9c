#include "server/front/subprocess.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace kbench::server {

absl::StatusOr<std::unique_ptr<Subprocess>> Subprocess::Spawn(const std::vector<std::string>& argv,
                                                              std::function<void(int)> exited) {
  std::vector<char*> args;
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);

  posix_spawn_file_actions_t files;
  posix_spawn_file_actions_init(&files);
  posix_spawn_file_actions_addopen(&files, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&files, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  sigset_t none, all;
  sigemptyset(&none);
  sigfillset(&all);
  posix_spawnattr_setsigmask(&attributes, &none);
  posix_spawnattr_setsigdefault(&attributes, &all);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);

  pid_t pid = 0;
  const int error = posix_spawn(&pid, args[0], &files, &attributes, args.data(), environ);
  posix_spawnattr_destroy(&attributes);
  posix_spawn_file_actions_destroy(&files);
  if (error != 0)
    return absl::InternalError(absl::StrCat("cannot start ", argv[0], ": ", strerror(error)));
  return std::unique_ptr<Subprocess>(new Subprocess(pid, std::move(exited)));
}

Subprocess::Subprocess(pid_t pid, std::function<void(int)> exited)
    : pid_(pid), exited_(std::move(exited)), watcher_([this] { Watch(); }) {}

Subprocess::~Subprocess() {
  Signal(SIGKILL);
  watcher_.join();
}

bool Subprocess::Signal(int signal) {
  std::lock_guard lock(mu_);
  if (status_) return false;
  return kill(pid_, signal) == 0;
}

std::optional<int> Subprocess::ExitStatus() const {
  std::lock_guard lock(mu_);
  return status_;
}

bool Subprocess::WaitForExit(std::chrono::milliseconds timeout) {
  std::unique_lock lock(mu_);
  return cv_.wait_for(lock, timeout, [&] { return status_.has_value(); });
}

void Subprocess::Watch() {
  // Wait without reaping, so that the pid stays ours until status_ is set.
  siginfo_t info;
  while (waitid(P_PID, id_t(pid_), &info, WEXITED | WNOWAIT) != 0 && errno == EINTR) {
  }
  int status = 0;
  {
    std::lock_guard lock(mu_);
    while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    status_ = status;
  }
  cv_.notify_all();
  if (exited_) exited_(status);
}

std::string DescribeWaitStatus(int status) {
  if (WIFEXITED(status)) return absl::StrCat("exited with status ", WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    const int signal = WTERMSIG(status);
    const char* name = sigabbrev_np(signal);
    return absl::StrCat("exited on signal ", signal,
                        name != nullptr ? absl::StrCat(" (SIG", name, ")") : "");
  }
  return absl::StrCat("ended with wait status ", status);
}

}  // namespace kbench::server
