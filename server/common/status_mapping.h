// absl::Status to grpc::Status, the one place where internal errors meet
// the wire. The codes are the same google.rpc codes, so it is a cast.
#pragma once

#include <string>

#include "absl/status/status.h"
#include "absl/strings/cord.h"
#include "grpcpp/support/status.h"

namespace kbench::server {

// The absl::Status payload whose bytes become the gRPC status's binary
// details (e.g. a serialized kbench.v1.Refusal, server/front/refusal.h).
inline constexpr char kGrpcDetailsPayload[] = "kbench/grpc-status-details";

inline grpc::Status ToGrpcStatus(const absl::Status& status) {
  if (status.ok()) return grpc::Status::OK;
  const auto details = status.GetPayload(kGrpcDetailsPayload);  // an optional Cord
  return grpc::Status(static_cast<grpc::StatusCode>(status.code()), std::string(status.message()),
                      details ? std::string(*details) : std::string());
}

}  // namespace kbench::server
