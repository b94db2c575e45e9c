// Exit codes of the kbench CLI, and how an RPC's outcome maps to them.
//
//   0    every variant ran and passed verification
//   1    a variant failed verification (its results are still printed)
//   2    bad arguments: a command-line error, or the server refused the
//        request with INVALID_ARGUMENT (its message names field and limit)
//   3    the server could not be reached or did not complete the call:
//        UNAVAILABLE, INTERNAL, DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED or any
//        other gRPC code but those of 2 and 4
//   4    not signed in (UNAUTHENTICATED: no token, or an unknown or revoked
//        one) or not allowed (PERMISSION_DENIED: e.g. another learner's runs)
//   130  interrupted by Ctrl-C (SIGINT) or SIGTERM; the run was cancelled
// Every subcommand ends with one of these (kExitCodesHelp in
// command_line.cc prints this table for --help).
#pragma once

#include <grpcpp/support/status.h>

#include <string>
#include <string_view>

namespace kbench::client {

enum class ExitCode : int {
  kOk = 0,
  kVerificationFailed = 1,
  kBadArguments = 2,
  kServerError = 3,
  kNotAllowed = 4,
  kInterrupted = 130,
};

// The exit code for a call that ended with `code` and was not interrupted by
// the user. OK maps to kOk: whether every variant verified is for the caller
// to decide from the results.
ExitCode ExitCodeForStatus(grpc::StatusCode code);

// How far a call to the server got, which decides how its failure reads:
// UNAVAILABLE before a connection means the server is not there; after the
// run's first event it means the connection was lost during the run.
enum class CallStage {
  kConnecting,  // no connection was made
  kCalling,     // connected; the server had sent nothing yet
  kStreaming,   // the server had sent at least one event of the run
};

// One line for stderr, starting "kbench: ", that explains a failed call to
// the server at `server` made with a deadline of `timeout_s` seconds that
// ended at `stage`.
std::string DescribeRpcFailure(const grpc::Status& status, std::string_view server,
                               double timeout_s, CallStage stage = CallStage::kConnecting);

}  // namespace kbench::client
