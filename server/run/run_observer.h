// Observers of runs in the front (kbench-server): the stream writer, the
// results store and the metrics each see every run's life without knowing
// of one another, and the runner knows none of them.
//
// Order for one run: OnAccepted, then OnStarted (a device took it), OnEvent
// for each event the worker produced (queued events included), then OnEnded
// exactly once and nothing after it (a device that hears of a cancel late
// still sends events: they reach no observer); or OnRefused alone for a request refused at
// admission (bad request, queue full, quota). OnEnded's status is OK when the Summary arrived
// (whether or not every variant verified: see the Summary), else the error the RPC ended with
// (CANCELLED, INTERNAL, UNAVAILABLE, ...).
//
// Threading: calls come from gRPC and scheduler threads, several runs at
// once, but the calls of one run never overlap. An observer must not block
// for long (queue slow work), and must not throw.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "kbench/v1/kbench.pb.h"
#include "server/identity/principal.h"

namespace kbench::server {

// What the front knows of a run when it is admitted (or refused).
struct RunAdmission {
  std::string run_id;
  // Who asked (auth/principal.h); principal.user is empty for the anonymous
  // caller of a server without identities.
  identity::Principal principal;
  // The client's address as gRPC reports it, e.g. "ipv4:127.0.0.1:50312".
  std::string peer;
  // "vector_add", "attention", ...; empty when the request named no op.
  std::string op;
  // As admitted: the seed filled in, the timing options resolved to the
  // values the run uses (every default applied). For a refused request,
  // what refused_request.h keeps of it.
  v1::RunRequest request;
  // Set when `request` is not all the client sent (a refused request whose
  // text was cut or made valid UTF-8, or that held unknown fields).
  bool sanitized = false;
  // Milliseconds since the Unix epoch.
  int64_t unix_ms = 0;
};

class RunObserver {
 public:
  virtual ~RunObserver() = default;
  virtual void OnAccepted(const RunAdmission& /*run*/) {}
  virtual void OnRefused(const RunAdmission& /*run*/, const absl::Status& /*why*/) {}
  virtual void OnStarted(const std::string& /*run_id*/, const v1::DeviceInfo& /*device*/) {}
  virtual void OnEvent(const std::string& /*run_id*/, const v1::RunEvent& /*event*/) {}
  virtual void OnEnded(const std::string& /*run_id*/, const absl::Status& /*status*/) {}
};

}  // namespace kbench::server
