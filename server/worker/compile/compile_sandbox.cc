#include "server/worker/compile/compile_sandbox.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include "absl/cleanup/cleanup.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace kbench::server::worker::compile {
namespace {

absl::StatusOr<std::string> MakePrivateDirectory() {
  const char* base = std::getenv("TMPDIR");
  std::string pattern = absl::StrCat(base && *base ? base : "/tmp", "/kbench-compile-XXXXXX");
  if (mkdtemp(pattern.data()) == nullptr)
    return absl::InternalError(
        absl::StrCat("compile sandbox: mkdtemp ", pattern, ": ", std::strerror(errno)));
  return pattern;
}

std::string ReadTail(const std::string& path, size_t bytes) {
  std::ifstream in(path, std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return text.size() <= bytes ? text : text.substr(text.size() - bytes);
}

std::string Limits(const SandboxLimits& limits) {
  return absl::StrCat("its limits: ", limits.cpu_seconds, " s of CPU, ", limits.wall_seconds,
                      " s of wall time, ", limits.memory_bytes >> 20, " MiB of memory");
}

}  // namespace

absl::StatusOr<kbench::worker::v1::CompileOutput> RunCompileHelper(
    const std::string& helper, const kbench::worker::v1::CompileJob& job,
    const SandboxLimits& limits) {
  absl::StatusOr<std::string> dir = MakePrivateDirectory();
  if (!dir.ok()) return dir.status();
  absl::Cleanup remove_dir = [&] {
    std::error_code ignored;
    std::filesystem::remove_all(*dir, ignored);
  };
  {
    std::ofstream out(*dir + "/job", std::ios::binary);
    if (!job.SerializeToOstream(&out) || !out.flush())
      return absl::InternalError(absl::StrCat("compile sandbox: cannot write ", *dir, "/job"));
  }

  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0)
    return absl::InternalError(absl::StrCat("compile sandbox: pipe: ", std::strerror(errno)));
  absl::Cleanup close_read = [&] { close(pipe_fds[0]); };

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  absl::Cleanup destroy_actions = [&] { posix_spawn_file_actions_destroy(&actions); };
  posix_spawn_file_actions_addchdir_np(&actions, dir->c_str());
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], 1);
  posix_spawn_file_actions_addopen(&actions, 2, "stderr", O_WRONLY | O_CREAT | O_TRUNC, 0600);
  // Closes every descriptor the worker has open (its sockets, its store)
  // that was not made close-on-exec.
  posix_spawn_file_actions_addclosefrom_np(&actions, 3);

  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  absl::Cleanup destroy_attr = [&] { posix_spawnattr_destroy(&attr); };
  sigset_t none, all;
  sigemptyset(&none);
  sigfillset(&all);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &all);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);

  const std::vector<std::string> args = {helper,
                                         "--cpu-seconds",
                                         absl::StrCat(limits.cpu_seconds),
                                         "--memory-bytes",
                                         absl::StrCat(limits.memory_bytes),
                                         "--file-bytes",
                                         absl::StrCat(limits.file_bytes),
                                         "--parent-pid",
                                         absl::StrCat(getpid())};
  const std::vector<std::string> env = {"PATH=/usr/bin:/bin", "HOME=" + *dir, "TMPDIR=" + *dir};
  std::vector<char*> argv, envp;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  for (const std::string& e : env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);

  pid_t pid = 0;
  const int spawned = posix_spawn(&pid, helper.c_str(), &actions, &attr, argv.data(), envp.data());
  close(pipe_fds[1]);
  if (spawned != 0)
    return absl::InternalError(
        absl::StrCat("compile sandbox: cannot start ", helper, ": ", std::strerror(spawned)));

  using Clock = std::chrono::steady_clock;
  const Clock::time_point deadline =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(
                         std::chrono::duration<double>(limits.wall_seconds));
  std::string output;
  bool timed_out = false, too_large = false;
  char buffer[65536];
  while (true) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      break;
    }
    pollfd fd{pipe_fds[0], POLLIN, 0};
    const int ready = poll(&fd, 1, int(std::min<int64_t>(left.count(), 1000)));
    if (ready < 0 && errno != EINTR) break;
    if (ready <= 0) continue;
    const ssize_t n = read(pipe_fds[0], buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    output.append(buffer, size_t(n));
    if (output.size() > limits.max_output_bytes) {
      too_large = true;
      break;
    }
  }
  int status = 0;
  // The helper has closed its stdout (it is exiting) unless it timed out or
  // wrote too much; it gets until the deadline to exit, then SIGKILL.
  while (!timed_out && !too_large && waitpid(pid, &status, WNOHANG) == 0) {
    if (Clock::now() >= deadline) {
      timed_out = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  if (timed_out || too_large) {
    kill(pid, SIGKILL);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
  if (timed_out)
    return absl::InvalidArgumentError(absl::StrCat("compile stopped: it took longer than ",
                                                   limits.wall_seconds, " s of wall time (",
                                                   Limits(limits), ")"));
  if (too_large)
    return absl::InvalidArgumentError(
        absl::StrCat("compile stopped: its output passed ", limits.max_output_bytes >> 20, " MiB"));
  if (WIFSIGNALED(status) && (WTERMSIG(status) == SIGXCPU || WTERMSIG(status) == SIGKILL))
    return absl::InvalidArgumentError(absl::StrCat("compile stopped: it used more than ",
                                                   limits.cpu_seconds, " s of CPU (",
                                                   Limits(limits), ")"));
  if (WIFSIGNALED(status) && WTERMSIG(status) == SIGXFSZ)
    return absl::InvalidArgumentError(
        absl::StrCat("compile stopped: it wrote a file over ", limits.file_bytes >> 20, " MiB"));
  if (WIFEXITED(status) && WEXITSTATUS(status) == kHelperExitOutOfMemory)
    return absl::InvalidArgumentError(absl::StrCat("compile stopped: it ran out of its ",
                                                   limits.memory_bytes >> 20, " MiB of memory"));
  const std::string err_tail = ReadTail(*dir + "/stderr", 2048);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return absl::InternalError(absl::StrCat(
        "compile sandbox: ", helper, WIFSIGNALED(status) ? " died on signal " : " exited with ",
        WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status), err_tail.empty() ? "" : ": ",
        err_tail));
  kbench::worker::v1::CompileOutput result;
  if (!result.ParseFromString(output))
    return absl::InternalError(
        absl::StrCat("compile sandbox: ", helper, " wrote an output that does not parse"));
  return result;
}

}  // namespace kbench::server::worker::compile
