#include "server/front/worker_paths.h"

#include <string.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <system_error>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace kbench::server {

absl::StatusOr<std::string> FindWorkerBinary(const std::string& flag) {
  std::string path = flag;
  if (path.empty()) {
    std::error_code error;
    const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
    if (error)
      return absl::FailedPreconditionError(
          absl::StrCat("cannot read /proc/self/exe (", error.message(), "); pass --worker-binary"));
    path = (self.parent_path() / "kbench-worker").string();
  }
  if (access(path.c_str(), X_OK) != 0)
    return absl::FailedPreconditionError(
        absl::StrCat("the worker binary ", path, " cannot be run (", strerror(errno), ")",
                     flag.empty() ? "; pass --worker-binary" : ""));
  return path;
}

absl::StatusOr<std::unique_ptr<SocketDirectory>> SocketDirectory::Create() {
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern =
      absl::StrCat(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp", "/kbench-XXXXXX");
  std::vector<char> buffer(pattern.begin(), pattern.end());
  buffer.push_back('\0');
  if (mkdtemp(buffer.data()) == nullptr)  // mkdtemp makes it 0700
    return absl::FailedPreconditionError(absl::StrCat(
        "cannot make a directory for the workers' sockets (", pattern, "): ", strerror(errno)));
  return std::unique_ptr<SocketDirectory>(new SocketDirectory(buffer.data()));
}

SocketDirectory::~SocketDirectory() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

absl::StatusOr<std::string> SocketDirectory::SocketFor(uint32_t index) const {
  std::string path = absl::StrCat(path_, "/worker-", index, ".sock");
  if (path.size() >= sizeof(sockaddr_un::sun_path))
    return absl::InvalidArgumentError(
        absl::StrCat("the worker socket path ", path, " is longer than a Unix socket allows (",
                     sizeof(sockaddr_un::sun_path) - 1, " bytes); set a shorter $TMPDIR"));
  return path;
}

}  // namespace kbench::server
