// The KernelBench service in this process on a loopback port, over one
// device run by a LocalExecutor: for the service tests (service_test.cc,
// fair_share_service_test.cc) that need no worker process. Header-only.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "grpcpp/grpcpp.h"
#include "server/limits.h"
#include "server/local_executor.h"
#include "server/service.h"

namespace kbench::testing {

// The default limits of a CPU device.
inline v1::Limits CpuLimits() { return server::DefaultLimits(v1::DeviceInfo()); }

class InProcessServer {
 public:
  explicit InProcessServer(std::unique_ptr<server::Device> device,
                           v1::Limits limits = CpuLimits())
      : InProcessServer(std::move(device), {limits, server::DefaultTiming()}) {}
  // options.authenticator and the observers must outlive the server.
  InProcessServer(std::unique_ptr<server::Device> device, server::ServiceOptions options,
                  std::vector<server::RunObserver*> observers = {})
      : scheduler_(Executors(std::move(device)), options.limits.max_queue(), {}),
        service_(scheduler_, std::move(options), std::move(observers)) {
    grpc::ServerBuilder builder;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port_);
    builder.RegisterService(&service_);
    server_ = builder.BuildAndStart();
  }
  ~InProcessServer() {
    server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
    scheduler_.Stop();
  }
  std::unique_ptr<v1::KernelBench::Stub> Stub() const {
    return v1::KernelBench::NewStub(grpc::CreateChannel(
        "127.0.0.1:" + std::to_string(port_), grpc::InsecureChannelCredentials()));
  }
  server::Scheduler& scheduler() { return scheduler_; }

 private:
  static std::vector<std::unique_ptr<server::Executor>> Executors(
      std::unique_ptr<server::Device> device) {
    std::vector<std::unique_ptr<server::Executor>> executors;
    executors.push_back(std::make_unique<server::LocalExecutor>(std::move(device)));
    return executors;
  }
  server::Scheduler scheduler_;
  server::KernelBenchService service_;
  int port_ = 0;
  std::unique_ptr<grpc::Server> server_;
};

}  // namespace kbench::testing
