#include "client/exit_codes.h"

#include <cstdio>
#include <optional>
#include <string>

#include "client/refusal.h"

namespace kbench::client {

ExitCode ExitCodeForStatus(grpc::StatusCode code) {
  switch (code) {
    case grpc::StatusCode::OK:
      return ExitCode::kOk;
    case grpc::StatusCode::INVALID_ARGUMENT:
      return ExitCode::kBadArguments;
    case grpc::StatusCode::UNAUTHENTICATED:
    case grpc::StatusCode::PERMISSION_DENIED:
      return ExitCode::kNotAllowed;
    default:
      return ExitCode::kServerError;
  }
}

std::string DescribeRpcFailure(const grpc::Status& status, std::string_view server,
                               double timeout_s, CallStage stage) {
  const std::string where(server);
  const std::string& detail = status.error_message();
  switch (status.error_code()) {
    case grpc::StatusCode::INVALID_ARGUMENT:
      return "kbench: invalid request: " + detail;
    case grpc::StatusCode::UNAVAILABLE:
      switch (stage) {
        case CallStage::kConnecting:
          return "kbench: cannot reach server at " + where +
                 " (is kbench-server running? set --server or "
                 "KBENCH_SERVER): " +
                 detail;
        case CallStage::kCalling:
          return "kbench: the server at " + where +
                 " is unavailable (it may be shutting down): " + detail;
        case CallStage::kStreaming:
          return "kbench: the connection to the server at " + where +
                 " was lost during the run (the server stopped or the "
                 "network failed); the run's results are lost: " +
                 detail;
      }
      break;
    case grpc::StatusCode::FAILED_PRECONDITION:
      if (stage == CallStage::kConnecting) {
        return "kbench: cannot talk to the server at " + where + ": " + detail;
      }
      break;
    case grpc::StatusCode::DEADLINE_EXCEEDED: {
      char seconds[32];
      std::snprintf(seconds, sizeof(seconds), "%g", timeout_s);
      return "kbench: no complete answer from " + where + " within --timeout " + seconds +
             " s (raise --timeout for long runs): " + detail;
    }
    case grpc::StatusCode::RESOURCE_EXHAUSTED: {
      const std::optional<v1::Refusal> refusal = RefusalOf(status);
      switch (refusal ? refusal->reason() : v1::Refusal::REASON_UNSPECIFIED) {
        case v1::Refusal::REASON_QUOTA:
          return "kbench: your own quota on " + where +
                 " is used up (the server is not busy; `kbench quota show` shows your "
                 "quotas): " +
                 detail;
        case v1::Refusal::REASON_QUEUE_FULL:
          return "kbench: server at " + where +
                 " is too busy (queue full); try again later: " + detail;
        case v1::Refusal::REASON_STREAMS:
          return "kbench: too many runs open at once from this client on " + where + ": " + detail;
        default:
          return "kbench: server at " + where +
                 " refused the call for want of a resource: " + detail;
      }
    }
    case grpc::StatusCode::UNAUTHENTICATED:
      return "kbench: not signed in to the server at " + where + ": " + detail;
    case grpc::StatusCode::PERMISSION_DENIED:
      return "kbench: not allowed: " + detail;
    case grpc::StatusCode::INTERNAL:
      return "kbench: the run failed on the server at " + where + ": " + detail;
    default:
      break;
  }
  return "kbench: call to server at " + where + " failed (gRPC code " +
         std::to_string(static_cast<int>(status.error_code())) + "): " + detail;
}

}  // namespace kbench::client
