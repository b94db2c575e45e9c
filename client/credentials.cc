#include "credentials.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace kbench::client {
namespace {

std::string Env(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr ? value : "";
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
  if (path.empty() || !std::filesystem::exists(path)) return std::string();
  std::ifstream file(path);
  std::string token;
  if (!file || !std::getline(file, token)) {
    return absl::PermissionDeniedError(absl::StrCat("cannot read the credentials file ", path));
  }
  return std::string(absl::StripAsciiWhitespace(token));
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
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) {
    return absl::PermissionDeniedError(
        absl::StrCat("cannot write ", path, ": ", std::strerror(errno)));
  }
  const std::string line = token + "\n";
  const bool written = ::fchmod(fd, 0600) == 0 &&
                       ::write(fd, line.data(), line.size()) == ssize_t(line.size());
  const int saved_errno = errno;
  ::close(fd);
  if (!written) {
    return absl::PermissionDeniedError(
        absl::StrCat("cannot write ", path, ": ", std::strerror(saved_errno)));
  }
  return path;
}

}  // namespace kbench::client
