#include "server/app/grpc_limits.h"

#include "grpcpp/resource_quota.h"

namespace kbench::server {
namespace {

int Ms(std::chrono::milliseconds duration) { return static_cast<int>(duration.count()); }

}  // namespace

void ApplyGrpcLimits(grpc::ServerBuilder& builder) {
  grpc::ResourceQuota quota("kbench-server");
  quota.Resize(kGrpcMemoryQuotaBytes);
  quota.SetMaxThreads(kGrpcMaxThreads);
  builder.SetResourceQuota(quota);
  builder.AddChannelArgument(GRPC_ARG_MAX_CONCURRENT_STREAMS, kMaxConcurrentStreamsPerConnection);
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIME_MS, Ms(kKeepaliveTime));
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, Ms(kKeepaliveTimeout));
  builder.AddChannelArgument(GRPC_ARG_HTTP2_MIN_RECV_PING_INTERVAL_WITHOUT_DATA_MS,
                             Ms(kMinClientPingInterval));
  builder.AddChannelArgument(GRPC_ARG_HTTP2_MAX_PING_STRIKES, kMaxPingStrikes);
  builder.AddChannelArgument(GRPC_ARG_MAX_CONNECTION_IDLE_MS, Ms(kMaxConnectionIdle));
}

}  // namespace kbench::server
