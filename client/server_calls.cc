#include "client/server_calls.h"

#include <grpcpp/create_channel.h>
#include <grpcpp/security/credentials.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <algorithm>
#include <fstream>
#include <memory>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

#include "client/tls_probe.h"
#include "kbench/v1/kbench.grpc.pb.h"

namespace kbench::client {
namespace {

using Clock = std::chrono::system_clock;

// How often a connection attempt looks at whether the user interrupted.
constexpr std::chrono::milliseconds kInterruptPoll(100);
// How long a failed connection may spend finding out whether TLS was the
// cause.
constexpr std::chrono::milliseconds kTlsProbeTimeout(1000);

}  // namespace

bool IsLoopbackServer(const std::string& server) {
  if (absl::StartsWith(server, "unix:") || absl::StartsWith(server, "unix-abstract:")) {
    return true;
  }
  std::string target = server;
  for (const char* scheme : {"ipv4:", "ipv6:"}) {
    if (absl::StartsWith(target, scheme)) target = target.substr(5);
  }
  if (absl::StartsWith(target, "dns:")) {
    target = target.substr(4);
    if (absl::StartsWith(target, "//")) {  // dns://AUTHORITY/HOST:PORT
      const size_t slash = target.find('/', 2);
      target = slash == std::string::npos ? "" : target.substr(slash + 1);
    }
  }
  std::string host = target;
  if (absl::StartsWith(target, "[")) {
    host = target.substr(1, target.find(']') - 1);
  } else if (std::count(target.begin(), target.end(), ':') == 1) {
    host = target.substr(0, target.find(':'));
  }
  if (host == "localhost") return true;
  in_addr v4;
  if (inet_pton(AF_INET, host.c_str(), &v4) == 1) return (ntohl(v4.s_addr) >> 24) == 127;
  in6_addr v6;
  if (inet_pton(AF_INET6, host.c_str(), &v6) == 1) return IN6_IS_ADDR_LOOPBACK(&v6);
  return false;
}

absl::Status CheckTransport(const CallOptions& options, bool login) {
  if (!options.ca_file.empty() && !std::ifstream(options.ca_file)) {
    return absl::NotFoundError(absl::StrCat("--ca: cannot read ", options.ca_file));
  }
  if ((options.token.empty() && !login) || options.tls || options.insecure_token ||
      IsLoopbackServer(options.server)) {
    return absl::OkStatus();
  }
  return absl::FailedPreconditionError(absl::StrCat(
      "will not send ", login ? "your invite code (and receive your token)" : "your token",
      " in clear text to ", options.server,
      " (anyone on the network could read it and act as you): give --tls (and --ca FILE "
      "for a private CA), or --insecure-token to send it anyway"));
}

// A connection that failed: a TLS mismatch says so, and which flag fixes
// it; anything else is UNAVAILABLE.
grpc::Status DescribeConnectFailure(const CallOptions& options) {
  const TlsProbe probe = ProbeTls(options.server, kTlsProbeTimeout);
  if (!options.tls && probe == TlsProbe::kSpeaksTls) {
    return grpc::Status(grpc::StatusCode::FAILED_PRECONDITION,
                        "the server speaks TLS and this client does not: give --tls (and --ca "
                        "FILE for a private CA)");
  }
  if (options.tls && probe == TlsProbe::kSpeaksPlain) {
    return grpc::Status(grpc::StatusCode::FAILED_PRECONDITION,
                        "the server does not speak TLS (it serves plain text): leave out "
                        "--tls");
  }
  if (options.tls && probe == TlsProbe::kSpeaksTls) {
    return grpc::Status(grpc::StatusCode::FAILED_PRECONDITION,
                        "the TLS handshake with the server failed: its certificate is not "
                        "trusted (give --ca FILE with the CA that signed it) or does not "
                        "name the host of --server");
  }
  return grpc::Status(grpc::StatusCode::UNAVAILABLE, "connection failed");
}

// Refused connections show as TRANSIENT_FAILURE.
grpc::Status ConnectToServer(const CallOptions& options, const InterruptWatcher& watcher,
                             std::shared_ptr<grpc::Channel>& channel) {
  std::shared_ptr<grpc::ChannelCredentials> credentials = grpc::InsecureChannelCredentials();
  if (options.tls) {
    grpc::SslCredentialsOptions ssl;
    if (!options.ca_file.empty()) {
      std::ifstream file(options.ca_file);
      std::stringstream pem;
      pem << file.rdbuf();
      ssl.pem_root_certs = pem.str();
    }
    credentials = grpc::SslCredentials(ssl);
  }
  // round_robin: where the target resolves to several servers (a headless
  // Service: dns:///kbench.NS.svc.cluster.local:50051), each call goes to
  // the next; with one address it is that address.
  grpc::ChannelArguments args;
  args.SetLoadBalancingPolicyName("round_robin");
  channel = grpc::CreateCustomChannel(options.server, credentials, args);
  const auto give_up =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(options.connect_timeout);
  grpc_connectivity_state state = channel->GetState(/*try_to_connect=*/true);
  while (state != GRPC_CHANNEL_READY) {
    if (watcher.interrupted()) {
      return grpc::Status(grpc::StatusCode::CANCELLED, "interrupted");
    }
    if (state == GRPC_CHANNEL_TRANSIENT_FAILURE || state == GRPC_CHANNEL_SHUTDOWN) {
      return DescribeConnectFailure(options);
    }
    if (Clock::now() >= give_up) {
      return grpc::Status(grpc::StatusCode::UNAVAILABLE,
                          "no connection within the connect timeout");
    }
    channel->WaitForStateChange(state, std::min(give_up, Clock::now() + kInterruptPoll));
    state = channel->GetState(/*try_to_connect=*/true);
  }
  return grpc::Status::OK;
}

void PrepareContext(const CallOptions& options, grpc::ClientContext& context) {
  context.set_wait_for_ready(false);
  if (!options.token.empty()) {
    context.AddMetadata("authorization", "Bearer " + options.token);
  }
  context.set_deadline(Clock::now() + std::chrono::duration_cast<Clock::duration>(options.timeout));
}

CallResult RunBenchmark(const CallOptions& options, const v1::RunRequest& request,
                        InterruptWatcher& watcher,
                        const std::function<void(const v1::RunEvent&)>& on_event) {
  std::shared_ptr<grpc::Channel> channel;
  if (grpc::Status status = ConnectToServer(options, watcher, channel); !status.ok()) {
    return {status, CallStage::kConnecting};
  }
  auto stub = v1::KernelBench::NewStub(channel);
  grpc::ClientContext context;
  PrepareContext(options, context);
  InterruptWatcher::Watch watch(watcher, &context);
  std::unique_ptr<grpc::ClientReader<v1::RunEvent>> reader = stub->Run(&context, request);
  CallStage stage = CallStage::kCalling;
  v1::RunEvent event;
  while (reader->Read(&event)) {
    stage = CallStage::kStreaming;
    on_event(event);
  }
  return {reader->Finish(), stage};
}

CallResult FetchServerInfo(const CallOptions& options, InterruptWatcher& watcher,
                           v1::ServerInfo& info) {
  std::shared_ptr<grpc::Channel> channel;
  if (grpc::Status status = ConnectToServer(options, watcher, channel); !status.ok()) {
    return {status, CallStage::kConnecting};
  }
  auto stub = v1::KernelBench::NewStub(channel);
  grpc::ClientContext context;
  PrepareContext(options, context);
  InterruptWatcher::Watch watch(watcher, &context);
  return {stub->GetServerInfo(&context, v1::GetServerInfoRequest(), &info), CallStage::kCalling};
}

}  // namespace kbench::client
