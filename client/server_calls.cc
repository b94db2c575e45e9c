#include "server_calls.h"

#include <grpcpp/create_channel.h>
#include <grpcpp/security/credentials.h>

#include <algorithm>
#include <memory>

#include "kbench/v1/kbench.grpc.pb.h"

namespace kbench::client {
namespace {

using Clock = std::chrono::system_clock;

// How often a connection attempt looks at whether the user interrupted.
constexpr std::chrono::milliseconds kInterruptPoll(100);

}  // namespace

// Refused connections show as TRANSIENT_FAILURE.
grpc::Status ConnectToServer(const CallOptions& options,
                             const InterruptWatcher& watcher,
                             std::shared_ptr<grpc::Channel>& channel) {
  channel =
      grpc::CreateChannel(options.server, grpc::InsecureChannelCredentials());
  const auto give_up =
      Clock::now() +
      std::chrono::duration_cast<Clock::duration>(options.connect_timeout);
  grpc_connectivity_state state = channel->GetState(/*try_to_connect=*/true);
  while (state != GRPC_CHANNEL_READY) {
    if (watcher.interrupted()) {
      return grpc::Status(grpc::StatusCode::CANCELLED, "interrupted");
    }
    if (state == GRPC_CHANNEL_TRANSIENT_FAILURE ||
        state == GRPC_CHANNEL_SHUTDOWN) {
      return grpc::Status(grpc::StatusCode::UNAVAILABLE, "connection failed");
    }
    if (Clock::now() >= give_up) {
      return grpc::Status(grpc::StatusCode::UNAVAILABLE,
                          "no connection within the connect timeout");
    }
    channel->WaitForStateChange(
        state, std::min(give_up, Clock::now() + kInterruptPoll));
    state = channel->GetState(/*try_to_connect=*/true);
  }
  return grpc::Status::OK;
}

void PrepareContext(const CallOptions& options, grpc::ClientContext& context) {
  context.set_wait_for_ready(false);
  context.set_deadline(
      Clock::now() +
      std::chrono::duration_cast<Clock::duration>(options.timeout));
}

CallResult RunBenchmark(
    const CallOptions& options, const v1::RunRequest& request,
    InterruptWatcher& watcher,
    const std::function<void(const v1::RunEvent&)>& on_event) {
  std::shared_ptr<grpc::Channel> channel;
  if (grpc::Status status = ConnectToServer(options, watcher, channel);
      !status.ok()) {
    return {status, CallStage::kConnecting};
  }
  auto stub = v1::KernelBench::NewStub(channel);
  grpc::ClientContext context;
  PrepareContext(options, context);
  InterruptWatcher::Watch watch(watcher, &context);
  std::unique_ptr<grpc::ClientReader<v1::RunEvent>> reader =
      stub->Run(&context, request);
  CallStage stage = CallStage::kCalling;
  v1::RunEvent event;
  while (reader->Read(&event)) {
    stage = CallStage::kStreaming;
    on_event(event);
  }
  return {reader->Finish(), stage};
}

CallResult FetchServerInfo(const CallOptions& options,
                           InterruptWatcher& watcher, v1::ServerInfo& info) {
  std::shared_ptr<grpc::Channel> channel;
  if (grpc::Status status = ConnectToServer(options, watcher, channel);
      !status.ok()) {
    return {status, CallStage::kConnecting};
  }
  auto stub = v1::KernelBench::NewStub(channel);
  grpc::ClientContext context;
  PrepareContext(options, context);
  InterruptWatcher::Watch watch(watcher, &context);
  return {stub->GetServerInfo(&context, v1::GetServerInfoRequest(), &info),
          CallStage::kCalling};
}

}  // namespace kbench::client
