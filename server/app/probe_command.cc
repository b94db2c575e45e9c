#include "server/app/probe_command.h"

#include <chrono>

#include "grpc/health/v1/health.grpc.pb.h"
#include "grpcpp/grpcpp.h"

namespace kbench::server {

ProbeCommandLine::ProbeCommandLine(CLI::App& app) {
  probe_ = app.add_subcommand(
      "probe",
      "Ask the health service at ADDRESS (the plain-text --health-listen port) and exit 0 "
      "when it is SERVING, 1 otherwise: for container HEALTHCHECKs");
  probe_->add_option("address", address_, "HOST:PORT of the health port")->required();
  probe_->add_option("--service", service_,
                     "\"\" (default): the server as a whole (liveness); kbench.v1.KernelBench: "
                     "some worker is ready (readiness)");
  probe_->add_option("--timeout-s", timeout_s_, "how long to wait for the answer [default: 5]")
      ->check(CLI::Range(0.1, 300.0));
}

int ProbeCommandLine::Run(std::ostream& out, std::ostream& err) const {
  const auto channel = grpc::CreateChannel(address_, grpc::InsecureChannelCredentials());
  const auto stub = grpc::health::v1::Health::NewStub(channel);
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() +
                       std::chrono::milliseconds(int64_t(timeout_s_ * 1000)));
  grpc::health::v1::HealthCheckRequest request;
  request.set_service(service_);
  grpc::health::v1::HealthCheckResponse response;
  const grpc::Status status = stub->Check(&context, request, &response);
  if (!status.ok()) {
    err << "kbench-server probe: " << address_ << ": " << status.error_message() << std::endl;
    return 1;
  }
  const std::string name =
      grpc::health::v1::HealthCheckResponse::ServingStatus_Name(response.status());
  if (response.status() != grpc::health::v1::HealthCheckResponse::SERVING) {
    err << "kbench-server probe: " << address_ << " service \"" << service_ << "\": " << name
        << std::endl;
    return 1;
  }
  out << name << std::endl;
  return 0;
}

}  // namespace kbench::server
