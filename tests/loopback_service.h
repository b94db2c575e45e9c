// One gRPC service served in plain text on a free 127.0.0.1 port for the
// length of a test: the server of the tests of services that need no
// scheduler (RunHistory, Quotas). Check ok() after construction; the
// service must outlive this object, whose destruction shuts the server
// down.
#pragma once

#include <memory>
#include <string>

#include "grpcpp/grpcpp.h"

namespace kbench::testing {

class LoopbackService {
 public:
  explicit LoopbackService(grpc::Service* service) {
    grpc::ServerBuilder builder;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port_);
    builder.RegisterService(service);
    server_ = builder.BuildAndStart();
  }
  ~LoopbackService() {
    if (server_) server_->Shutdown();
  }
  LoopbackService(const LoopbackService&) = delete;
  LoopbackService& operator=(const LoopbackService&) = delete;

  bool ok() const { return server_ != nullptr; }
  std::string Address() const { return "127.0.0.1:" + std::to_string(port_); }
  std::shared_ptr<grpc::Channel> Channel() const {
    return grpc::CreateChannel(Address(), grpc::InsecureChannelCredentials());
  }

 private:
  int port_ = 0;
  std::unique_ptr<grpc::Server> server_;
};

}  // namespace kbench::testing
