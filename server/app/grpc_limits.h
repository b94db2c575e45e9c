// What one client may hold of kbench-server's gRPC ports, set on each
// server the process builds (the API port and --health-listen). gRPC's
// defaults leave these open: no memory or thread bound, unlimited streams
// a connection, idle connections kept for ever, a dead peer noticed after
// two hours. The application's own limits (Limits.max_streams_per_client,
// the run queue) come on top.
#pragma once

#include <chrono>
#include <cstddef>

#include "grpcpp/server_builder.h"

namespace kbench::server {

// Memory gRPC may use for its buffers and calls in flight, all
// connections together; past it new calls are refused rather than the
// process growing.
inline constexpr size_t kGrpcMemoryQuotaBytes = size_t{512} << 20;
// Threads gRPC's synchronous paths may use.
inline constexpr int kGrpcMaxThreads = 256;
// Streams one connection may have open at once (HTTP/2
// SETTINGS_MAX_CONCURRENT_STREAMS); a client queues the ones past it.
inline constexpr int kMaxConcurrentStreamsPerConnection = 100;
// The server pings a connection that was quiet this long, and drops it if
// the ping is not answered within kKeepaliveTimeout.
inline constexpr std::chrono::seconds kKeepaliveTime{60};
inline constexpr std::chrono::seconds kKeepaliveTimeout{20};
// Keepalive enforcement: a client may ping at most once each this long
// while no call is open; the server drops a connection after
// kMaxPingStrikes pings that come sooner.
inline constexpr std::chrono::seconds kMinClientPingInterval{30};
inline constexpr int kMaxPingStrikes = 2;
// A connection with no call open for this long is closed (the client
// reconnects when it next calls).
inline constexpr std::chrono::minutes kMaxConnectionIdle{15};

// Sets the limits above on `builder`.
void ApplyGrpcLimits(grpc::ServerBuilder& builder);

}  // namespace kbench::server
