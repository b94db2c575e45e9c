// Where the front finds the worker binary and puts the workers' sockets.
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"

namespace kbench::server {

// `flag` (--worker-binary) when given, else kbench-worker beside this
// program (/proc/self/exe); FAILED_PRECONDITION when it is not executable.
absl::StatusOr<std::string> FindWorkerBinary(const std::string& flag);

// A directory only this user can enter (0700), made under $TMPDIR (or /tmp)
// for the workers' Unix sockets, so no other user can connect to a worker.
// Removed, with what is in it, when destroyed. Not thread-safe.
class SocketDirectory {
 public:
  static absl::StatusOr<std::unique_ptr<SocketDirectory>> Create();
  ~SocketDirectory();

  SocketDirectory(const SocketDirectory&) = delete;
  SocketDirectory& operator=(const SocketDirectory&) = delete;

  const std::string& path() const { return path_; }
  // The socket of device `index`'s worker; INVALID_ARGUMENT when the path is
  // too long for a Unix socket (set a shorter $TMPDIR).
  absl::StatusOr<std::string> SocketFor(uint32_t index) const;

 private:
  explicit SocketDirectory(std::string path) : path_(std::move(path)) {}

  const std::string path_;
};

}  // namespace kbench::server
