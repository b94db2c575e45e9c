#include "client/tls_probe.h"

#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>

#include "absl/strings/match.h"

namespace kbench::client {
namespace {

using Clock = std::chrono::steady_clock;

// Host and port of a gRPC target, or false for a target that is not one
// TCP address.
bool SplitTarget(std::string target, std::string& host, std::string& port) {
  for (absl::string_view scheme : {"dns:///", "ipv4:", "ipv6:"})
    if (absl::StartsWith(target, scheme)) target = target.substr(scheme.size());
  const size_t colon = target.rfind(':');
  if (colon == std::string::npos || absl::StrContains(target, "/")) return false;
  host = target.substr(0, colon);
  port = target.substr(colon + 1);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
  return !host.empty() && !port.empty();
}

void AppendLength(std::string& out, size_t length, int bytes) {
  for (int shift = 8 * (bytes - 1); shift >= 0; shift -= 8) out += char((length >> shift) & 0xff);
}

// A TLS 1.2 ClientHello offering the ECDHE-GCM suites, x25519 and P-256, and
// ALPN h2: enough for a TLS server to answer with its ServerHello, or at
// least an alert.
std::string ClientHello() {
  using namespace std::string_literals;
  const std::string suites = "\xc0\x2f\xc0\x2b\xc0\x30\xc0\x2c"s;
  const std::string extensions =
      "\x00\x0a\x00\x06\x00\x04\x00\x1d\x00\x17"s                      // supported_groups
      "\x00\x0b\x00\x02\x01\x00"s                                      // ec_point_formats
      "\x00\x0d\x00\x08\x00\x06\x04\x01\x04\x03\x08\x04"s              // signature_algorithms
      "\x00\x10\x00\x05\x00\x03\x02h2"s;                               // ALPN
  std::string body = "\x03\x03"s + std::string(32, '\x2a') + "\x00"s;  // version, random, no id
  AppendLength(body, suites.size(), 2);
  body += suites + "\x01\x00"s;  // null compression only
  AppendLength(body, extensions.size(), 2);
  body += extensions;
  std::string handshake = "\x01"s;
  AppendLength(handshake, body.size(), 3);
  handshake += body;
  std::string record = "\x16\x03\x01"s;
  AppendLength(record, handshake.size(), 2);
  return record + handshake;
}

// Waits for `events` on fd until `deadline`; true if they came.
bool WaitFor(int fd, short events, Clock::time_point deadline) {
  const auto left =
      std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  if (left <= 0) return false;
  pollfd p{fd, events, 0};
  return poll(&p, 1, int(left)) == 1 && (p.revents & (events | POLLHUP | POLLERR));
}

TlsProbe ProbeAddress(const addrinfo& address, Clock::time_point deadline) {
  const int fd = socket(address.ai_family, address.ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
                        address.ai_protocol);
  if (fd < 0) return TlsProbe::kUnknown;
  TlsProbe result = TlsProbe::kUnknown;
  const std::string hello = ClientHello();
  int error = 0;
  socklen_t error_size = sizeof error;
  if ((connect(fd, address.ai_addr, address.ai_addrlen) == 0 || errno == EINPROGRESS) &&
      WaitFor(fd, POLLOUT, deadline) &&
      getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &error_size) == 0 && error == 0 &&
      send(fd, hello.data(), hello.size(), MSG_NOSIGNAL) == ssize_t(hello.size())) {
    uint8_t answer[3] = {};
    size_t got = 0;
    while (got < sizeof answer && WaitFor(fd, POLLIN, deadline)) {
      const ssize_t n = recv(fd, answer + got, sizeof answer - got, 0);
      if (n <= 0) break;
      got += size_t(n);
    }
    if (got >= 2)
      result = (answer[0] == 0x16 || answer[0] == 0x15) && answer[1] == 0x03
                   ? TlsProbe::kSpeaksTls
                   : TlsProbe::kSpeaksPlain;
  }
  close(fd);
  return result;
}

}  // namespace

TlsProbe ProbeTls(const std::string& server, std::chrono::milliseconds timeout) {
  std::string host, port;
  if (!SplitTarget(server, host, port)) return TlsProbe::kUnknown;
  const auto deadline = Clock::now() + timeout;
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* addresses = nullptr;
  if (getaddrinfo(host.c_str(), port.c_str(), &hints, &addresses) != 0) return TlsProbe::kUnknown;
  TlsProbe result = TlsProbe::kUnknown;
  for (addrinfo* a = addresses; a != nullptr && result == TlsProbe::kUnknown; a = a->ai_next)
    result = ProbeAddress(*a, deadline);
  freeaddrinfo(addresses);
  return result;
}

}  // namespace kbench::client
