#include "client/credentials.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace kbench::client {
namespace {

std::string Env(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr ? value : "";
}

// A token is one short line; more is not a credentials file.
constexpr size_t kMaxCredentialsBytes = 4096;

// PERMISSION_DENIED for errno; a symbolic link (ELOOP under O_NOFOLLOW) said
// as such.
absl::Status CannotUse(const char* verb, const std::string& path) {
  if (errno == ELOOP) {
    return absl::PermissionDeniedError(absl::StrCat(
        "the credentials file ", path, " is a symbolic link; kbench does not follow it"));
  }
  return absl::PermissionDeniedError(
      absl::StrCat("cannot ", verb, " the credentials file ", path, ": ", std::strerror(errno)));
}

}  // namespace

std::string CredentialsPath() {
  if (!Env("XDG_CONFIG_HOME").empty()) return Env("XDG_CONFIG_HOME") + "/kbench/credentials";
  if (!Env("HOME").empty()) return Env("HOME") + "/.config/kbench/credentials";
  return "";
}

absl::StatusOr<std::string> LoadToken() {
  if (std::string token = Env("KBENCH_TOKEN"); !token.empty()) {
    return std::string(absl::StripAsciiWhitespace(token));
  }
  const std::string path = CredentialsPath();
  if (path.empty()) return std::string();
  // O_NOFOLLOW: a link planted at the path (another user's file, a device)
  // is refused, not read.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0 && errno == ENOENT) return std::string();
  if (fd < 0) return CannotUse("read", path);
  std::string text;
  char buffer[512];
  ssize_t n = 0;
  while (text.find('\n') == std::string::npos && text.size() < kMaxCredentialsBytes &&
         (n = ::read(fd, buffer, sizeof(buffer))) > 0) {
    text.append(buffer, static_cast<size_t>(n));
  }
  const int saved_errno = errno;
  ::close(fd);
  if (n < 0) {
    errno = saved_errno;
    return CannotUse("read", path);
  }
  return std::string(absl::StripAsciiWhitespace(text.substr(0, text.find('\n'))));
}

absl::StatusOr<std::string> SaveToken(const std::string& token) {
  const std::string path = CredentialsPath();
  if (path.empty()) {
    return absl::FailedPreconditionError(
        "nowhere to save the token: neither XDG_CONFIG_HOME nor HOME is set");
  }
  const std::filesystem::path directory = std::filesystem::path(path).parent_path();
  std::error_code error;
  std::filesystem::create_directories(directory, error);
  if (error || ::chmod(directory.c_str(), 0700) != 0) {
    return absl::PermissionDeniedError(
        absl::StrCat("cannot make the directory ", directory.string(), ": ",
                     error ? error.message() : std::strerror(errno)));
  }
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return CannotUse("write", path);
  const std::string line = token + "\n";
  const bool written =
      ::fchmod(fd, 0600) == 0 && ::write(fd, line.data(), line.size()) == ssize_t(line.size());
  const int saved_errno = errno;
  ::close(fd);
  if (!written) {
    return absl::PermissionDeniedError(
        absl::StrCat("cannot write ", path, ": ", std::strerror(saved_errno)));
  }
  return path;
}

}  // namespace kbench::client
