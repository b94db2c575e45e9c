#include "server/app/grpc_listeners.h"

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "grpcpp/ext/proto_server_reflection_plugin.h"
#include "grpcpp/health_check_service_interface.h"
#include "grpcpp/impl/server_builder_option.h"
#include "grpcpp/impl/server_builder_plugin.h"
#include "kernels/common/status_macros.h"
#include "server/app/grpc_limits.h"

namespace kbench::server {
namespace {

constexpr char kServiceName[] = "kbench.v1.KernelBench";

// Server credentials of a PEM certificate chain and its key; NOT_FOUND
// naming a file that cannot be read.
absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> TlsCredentials(
    const std::string& cert_path, const std::string& key_path) {
  auto read = [](const std::string& flag, const std::string& path) -> absl::StatusOr<std::string> {
    std::ifstream file(path);
    std::stringstream text;
    if (!file || !(text << file.rdbuf())) {
      return absl::NotFoundError(absl::StrCat(flag, ": cannot read ", path));
    }
    return text.str();
  };
  grpc::SslServerCredentialsOptions ssl;
  grpc::SslServerCredentialsOptions::PemKeyCertPair pair;
  KBENCH_ASSIGN_OR_RETURN(pair.cert_chain, read("--tls-cert", cert_path));
  KBENCH_ASSIGN_OR_RETURN(pair.private_key, read("--tls-key", key_path));
  ssl.pem_key_cert_pairs.push_back(std::move(pair));
  return grpc::SslServerCredentials(ssl);
}

// Linking gRPC's reflection library registers its plugin for every
// builder (a static initializer); this option takes it out of one.
class WithoutReflection final : public grpc::ServerBuilderOption {
 public:
  void UpdateArguments(grpc::ChannelArguments*) override {}
  void UpdatePlugins(std::vector<std::unique_ptr<grpc::ServerBuilderPlugin>>* plugins) override {
    std::erase_if(*plugins, [](const std::unique_ptr<grpc::ServerBuilderPlugin>& plugin) {
      return plugin->name() == "proto_server_reflection";
    });
  }
};

}  // namespace

void ServingHealth::Watch(grpc::Server* server) {
  for (std::atomic<grpc::Server*>& slot : servers_) {
    grpc::Server* empty = nullptr;
    if (slot.compare_exchange_strong(empty, server)) return;
  }
}

void ServingHealth::Set(bool serving) {
  for (std::atomic<grpc::Server*>& slot : servers_) {
    grpc::Server* server = slot.load();
    if (server == nullptr) continue;
    server->GetHealthCheckService()->SetServingStatus(kServiceName, serving);
  }
}

absl::StatusOr<GrpcListeners> StartGrpcListeners(const ServerFlags& flags, FrontServices& services,
                                                 ServingHealth& health) {
  grpc::EnableDefaultHealthCheckService(true);
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  std::shared_ptr<grpc::ServerCredentials> credentials = grpc::InsecureServerCredentials();
  if (!flags.tls_cert.empty()) {
    KBENCH_ASSIGN_OR_RETURN(credentials, TlsCredentials(flags.tls_cert, flags.tls_key));
  }
  GrpcListeners listeners;
  grpc::ServerBuilder builder;
  ApplyGrpcLimits(builder);
  builder.AddListeningPort(flags.listen, credentials, &listeners.port);
  if (!flags.enable_reflection) builder.SetOption(std::make_unique<WithoutReflection>());
  services.RegisterOn(builder);
  listeners.server = builder.BuildAndStart();
  if (listeners.server == nullptr || listeners.port == 0)
    return absl::UnavailableError("cannot listen on " + flags.listen);
  health.Watch(listeners.server.get());
  if (flags.health_listen == "off") return listeners;
  grpc::ServerBuilder health_builder;
  health_builder.SetOption(std::make_unique<WithoutReflection>());
  // Answers every other method UNIMPLEMENTED, and makes the health service
  // a callback one (the builder needs a service of some kind).
  listeners.health_other_methods = std::make_unique<grpc::CallbackGenericService>();
  health_builder.RegisterCallbackGenericService(listeners.health_other_methods.get());
  ApplyGrpcLimits(health_builder);
  int health_port = 0;
  health_builder.AddListeningPort(flags.health_listen, grpc::InsecureServerCredentials(),
                                  &health_port);
  listeners.health_server = health_builder.BuildAndStart();
  if (listeners.health_server == nullptr || health_port == 0)
    return absl::UnavailableError("--health-listen: cannot listen on " + flags.health_listen);
  health.Watch(listeners.health_server.get());
  const std::string health_host = flags.health_listen.substr(0, flags.health_listen.rfind(':'));
  std::printf("kbench-server health on %s:%d\n", health_host.c_str(), health_port);
  return listeners;
}

}  // namespace kbench::server
