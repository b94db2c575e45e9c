// Whether the server at an address speaks TLS, for a connection that
// failed: one TCP connection that sends a TLS ClientHello and reads the
// first bytes of the answer. A TLS server answers with a handshake or an
// alert record (0x16 or 0x15, then version 3.x); a gRPC server in plain text
// answers with HTTP/2 frames, or closes. So a client without --tls can say
// "the server speaks TLS", and one with --tls "it does not", instead of a
// bare "connection failed".
#pragma once

#include <chrono>
#include <string>

namespace kbench::client {

enum class TlsProbe {
  kSpeaksTls,    // answered with a TLS record
  kSpeaksPlain,  // answered, but not with TLS
  kUnknown,      // no connection, no answer in time, a unix: socket, ...
};

// Probes `server` (HOST:PORT, [V6]:PORT, dns:///HOST:PORT, ipv4:ADDR:PORT),
// taking at most about `timeout`.
TlsProbe ProbeTls(const std::string& server, std::chrono::milliseconds timeout);

}  // namespace kbench::client
