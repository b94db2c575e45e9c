// The KernelBench service in-process on a loopback port, for the service
// tests: one device behind a LocalExecutor, the scheduler and the service
// with the given limits, and helpers to read Run streams. Header-only.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "grpcpp/grpcpp.h"
#include "server/front/service.h"
#include "server/run/limits.h"
#include "server/worker/backends/cpu/cpu_device.h"
#include "server/worker/local_executor.h"
#include "tests/fake_device.h"

namespace kbench::server {

using testing::FakeDevice;

inline v1::Limits CpuLimits() { return DefaultLimits(v1::DeviceInfo()); }

inline std::unique_ptr<worker::Device> MakeCpuDevice() {
  return worker::backends::cpu::MakeCpuDevice();
}

class TestServer {
 public:
  explicit TestServer(std::unique_ptr<worker::Device> device, v1::Limits limits = CpuLimits())
      : TestServer(std::move(device), ServiceOptions{limits, DefaultTiming()}) {}
  // options.authenticator, options.quotas and the observers must outlive the
  // server.
  TestServer(std::unique_ptr<worker::Device> device, ServiceOptions options,
             std::vector<RunObserver*> observers = {})
      : scheduler_(MakeExecutors(std::move(device)), options.limits.max_queue(), {}),
        service_(scheduler_, std::move(options), std::move(observers)) {
    grpc::ServerBuilder builder;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port_);
    builder.RegisterService(&service_);
    server_ = builder.BuildAndStart();
  }
  ~TestServer() {
    server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
    scheduler_.Stop();
  }
  std::unique_ptr<v1::KernelBench::Stub> Stub(
      const grpc::ChannelArguments& args = grpc::ChannelArguments()) const {
    return v1::KernelBench::NewStub(grpc::CreateCustomChannel(
        "127.0.0.1:" + std::to_string(port_), grpc::InsecureChannelCredentials(), args));
  }
  Scheduler& scheduler() { return scheduler_; }
  int port() const { return port_; }

 private:
  static std::vector<std::unique_ptr<Executor>> MakeExecutors(std::unique_ptr<worker::Device> d) {
    std::vector<std::unique_ptr<Executor>> v;
    v.push_back(std::make_unique<worker::LocalExecutor>(std::move(d)));
    return v;
  }
  Scheduler scheduler_;
  KernelBenchService service_;
  int port_ = 0;
  std::unique_ptr<grpc::Server> server_;
};

struct Stream {
  std::vector<v1::RunEvent> events;
  grpc::Status status;
};

inline Stream ReadAll(grpc::ClientReaderInterface<v1::RunEvent>& reader) {
  Stream out;
  v1::RunEvent event;
  while (reader.Read(&event)) out.events.push_back(event);
  out.status = reader.Finish();
  return out;
}

inline Stream RunVectorAdd(v1::KernelBench::Stub& stub, const v1::VectorAddRequest& request) {
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
  auto reader = stub.RunVectorAdd(&context, request);
  return ReadAll(*reader);
}

inline v1::VectorAddRequest SmallVectorAdd() {
  v1::VectorAddRequest request;
  request.set_n(4099);
  request.add_variants("naive");
  request.add_variants("vectorized");
  request.mutable_timing()->set_min_samples(5);
  request.mutable_timing()->set_min_time_ms(1);
  request.mutable_timing()->set_time_budget_ms(200);
  return request;
}

// A fake device whose samples each take sleep_ms of real time.
inline std::unique_ptr<worker::Device> SlowDevice(double sleep_ms) {
  return std::make_unique<FakeDevice>(
      std::vector<std::pair<std::string, testing::FakeVariant>>{{"naive", {1.0}}}, sleep_ms);
}

inline v1::VectorAddRequest LongVectorAdd() {
  v1::VectorAddRequest request;
  request.set_n(100);
  request.mutable_timing()->set_warmup_runs(0);
  request.mutable_timing()->set_min_samples(1000);
  request.mutable_timing()->set_max_samples(1000);
  request.mutable_timing()->set_min_time_ms(60000);
  request.mutable_timing()->set_time_budget_ms(60000);
  return request;
}

// Reads events until one satisfies pred; false if the stream ended first.
template <typename Pred>
inline bool ReadUntil(grpc::ClientReaderInterface<v1::RunEvent>& reader, Pred pred,
                      std::vector<v1::RunEvent>* seen = nullptr) {
  v1::RunEvent event;
  while (reader.Read(&event)) {
    if (seen) seen->push_back(event);
    if (pred(event)) return true;
  }
  return false;
}

template <typename Pred>
inline bool Eventually(Pred pred, std::chrono::milliseconds limit = std::chrono::seconds(5)) {
  const auto end = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < end) {
    if (pred()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return pred();
}

}  // namespace kbench::server
