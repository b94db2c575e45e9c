// kbench-server as a process, for what only its assembly decides (issue
// 37): gRPC server reflection is off unless --enable-reflection, and never
// on the plain-text health port.
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "grpcpp/generic/generic_stub.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "tests/server_under_test.h"

namespace kbench::testing {
namespace {

constexpr char kReflectionMethod[] =
    "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo";

// The status of one ServerReflectionRequest{list_services: ""} to `address`:
// UNIMPLEMENTED where the server has no reflection.
grpc::StatusCode ListServices(const std::string& address) {
  grpc::GenericStub stub(grpc::CreateChannel(address, grpc::InsecureChannelCredentials()));
  grpc::CompletionQueue queue;
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(20));
  std::unique_ptr<grpc::GenericClientAsyncReaderWriter> call =
      stub.PrepareCall(&context, kReflectionMethod, &queue);
  auto step = [&](auto start) {
    void* tag = nullptr;
    bool ok = false;
    start(&ok);
    return queue.Next(&tag, &ok) && ok;
  };
  const std::string list_services("\x3a\x00", 2);  // field 7, empty string
  grpc::Slice slice(list_services);
  grpc::ByteBuffer request(&slice, 1);
  grpc::ByteBuffer response;
  grpc::Status status;
  if (step([&](void* tag) { call->StartCall(tag); }) &&
      step([&](void* tag) { call->Write(request, tag); }) &&
      step([&](void* tag) { call->WritesDone(tag); })) {
    step([&](void* tag) { call->Read(&response, tag); });
  }
  step([&](void* tag) { call->Finish(&status, tag); });
  queue.Shutdown();
  void* tag = nullptr;
  bool ok = false;
  while (queue.Next(&tag, &ok)) {
  }
  return status.error_code();
}

// The "HOST:PORT" after `prefix` in the server's stdout.
std::string PrintedAddress(ServerUnderTest& server, const std::string& prefix) {
  if (!server.process().WaitForOutput(prefix, 10s)) return "";
  const std::string& out = server.process().out();
  const size_t at = out.find(prefix) + prefix.size();
  return out.substr(at, out.find('\n', at) - at);
}

TEST(SecurityReflection, IsOffUnlessAskedAndNeverOnTheHealthPort) {
  for (const bool enabled : {false, true}) {
    std::vector<std::string> args = {"--backend", "cpu", "--health-listen", "127.0.0.1:0"};
    if (enabled) args.push_back("--enable-reflection");
    ServerUnderTest server(args);
    ASSERT_FALSE(server.address().empty()) << "the server did not start";
    const std::string health = PrintedAddress(server, "kbench-server health on ");
    ASSERT_FALSE(health.empty());
    EXPECT_EQ(ListServices(server.address()),
              enabled ? grpc::StatusCode::OK : grpc::StatusCode::UNIMPLEMENTED)
        << "--enable-reflection " << enabled;
    EXPECT_EQ(ListServices(health), grpc::StatusCode::UNIMPLEMENTED)
        << "--enable-reflection " << enabled;
  }
}

}  // namespace
}  // namespace kbench::testing
