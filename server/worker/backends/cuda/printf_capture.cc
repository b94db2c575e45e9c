#include "server/worker/backends/cuda/printf_capture.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace kbench::server::worker::backends::cuda {
namespace {

std::atomic<PrintfCapture*> active{nullptr};

absl::Status Errno(const char* what) {
  return absl::InternalError(absl::StrCat("printf capture: ", what, ": ", std::strerror(errno)));
}

}  // namespace

absl::StatusOr<std::unique_ptr<PrintfCapture>> PrintfCapture::Start() {
  if (active.load() != nullptr)
    return absl::FailedPreconditionError("printf capture: one is already active");
  const int file = memfd_create("kbench-kernel-printf", MFD_CLOEXEC);
  if (file < 0) return Errno("memfd_create");
  std::fflush(stdout);
  const int saved = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 0);
  if (saved < 0 || dup2(file, STDOUT_FILENO) < 0) {
    const absl::Status status = Errno("dup2");
    close(file);
    if (saved >= 0) close(saved);
    return status;
  }
  std::unique_ptr<PrintfCapture> capture(new PrintfCapture(file, saved));
  active.store(capture.get());
  return capture;
}

PrintfCapture::~PrintfCapture() {
  std::fflush(stdout);
  dup2(saved_stdout_, STDOUT_FILENO);
  close(saved_stdout_);
  close(file_);
  active.store(nullptr);
}

PrintfCapture* PrintfCapture::Active() { return active.load(); }

PrintfCapture::Taken PrintfCapture::Take(size_t max_bytes) {
  Taken taken;
  std::fflush(stdout);
  struct stat info {};
  if (fstat(file_, &info) != 0 || info.st_size <= 0) return taken;
  taken.bytes = uint64_t(info.st_size);
  taken.text.resize(std::min<size_t>(max_bytes, size_t(info.st_size)));
  const ssize_t got = pread(file_, taken.text.data(), taken.text.size(), 0);
  taken.text.resize(got > 0 ? size_t(got) : 0);
  // Empty the file and write from its start again (fd 1 shares the offset).
  if (ftruncate(file_, 0) == 0) lseek(file_, 0, SEEK_SET);
  return taken;
}

}  // namespace kbench::server::worker::backends::cuda
