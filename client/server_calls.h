// The calls the CLI makes to a KernelBench server, over a blocking stub.
#pragma once

#include <grpcpp/channel.h>
#include <grpcpp/client_context.h>
#include <grpcpp/support/status.h>

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "client/exit_codes.h"
#include "client/interrupt_watcher.h"
#include "kbench/v1/kbench.pb.h"

namespace kbench::client {

struct CallOptions {
  // HOST:PORT, or any gRPC target.
  std::string server;
  // Deadline of the whole call, from its start.
  std::chrono::duration<double> timeout{600};
  // How long to wait for a connection before giving up with UNAVAILABLE.
  std::chrono::duration<double> connect_timeout{5};
  // The bearer token sent on every call as `authorization` metadata; none
  // when empty (credentials.h says where it comes from).
  std::string token;
  // TLS to the server, checking its certificate against `ca_file` (PEM;
  // empty: the system's roots).
  bool tls = false;
  std::string ca_file;
  // Send the token (or login's invite code) even in clear text to a server
  // that is not loopback.
  bool insecure_token = false;
};

// Whether the server, a gRPC target (HOST:PORT, dns:///HOST:PORT,
// ipv4:ADDR:PORT, ipv6:[ADDR]:PORT, unix:PATH), is this machine: an address
// in 127.0.0.0/8 or ::1, exactly "localhost", or a unix socket. Anything
// else is not, "127.0.0.1.nip.io" included (a name may resolve anywhere).
bool IsLoopbackServer(const std::string& server);

// OK unless `options` would send a secret in clear text (no TLS) to a
// server that is not loopback without insecure_token: then
// FAILED_PRECONDITION saying why and what to do. The secret is the token,
// or with `login` (the call sends an invite code and receives a new
// token) that exchange, with or without a token. Also an unreadable
// ca_file.
absl::Status CheckTransport(const CallOptions& options, bool login);

// How a call ended, and how far it got (for DescribeRpcFailure).
struct CallResult {
  grpc::Status status;
  CallStage stage = CallStage::kConnecting;
};

// A channel to options.server once it is READY. Fails fast with UNAVAILABLE,
// without waiting out connect_timeout, when the connection is refused;
// FAILED_PRECONDITION naming the flag when TLS is the cause (the server
// speaks TLS and options.tls is false, or the reverse, or the handshake
// failed: tls_probe.h); UNAVAILABLE when none was made within
// connect_timeout; CANCELLED if `watcher` saw an interrupt.
grpc::Status ConnectToServer(const CallOptions& options, const InterruptWatcher& watcher,
                             std::shared_ptr<grpc::Channel>& channel);

// Sets the call's deadline (options.timeout from now), wait_for_ready
// false and the token's `authorization: Bearer TOKEN` metadata, as every
// call of the CLI makes it.
void PrepareContext(const CallOptions& options, grpc::ClientContext& context);

// Connects to the server, then sends `request` through the generic Run RPC
// and passes each RunEvent to `on_event` as it arrives, on the calling
// thread. Returns the stream's final status; UNAVAILABLE at kConnecting if
// no connection was made (refused at once, or none within connect_timeout);
// CANCELLED if `watcher` saw an interrupt. The RPC does not wait for a
// server that is not ready (wait_for_ready false).
CallResult RunBenchmark(const CallOptions& options, const v1::RunRequest& request,
                        InterruptWatcher& watcher,
                        const std::function<void(const v1::RunEvent&)>& on_event);

// Connects as RunBenchmark does and asks for the server's ServerInfo.
CallResult FetchServerInfo(const CallOptions& options, InterruptWatcher& watcher,
                           v1::ServerInfo& info);

}  // namespace kbench::client
