// One streaming run RPC: the bridge between the gRPC reactor (which writes
// events to the client, one write in flight at a time) and the scheduler's
// device thread (which produces them). Events wait here in a bounded
// buffer (event_buffer.h: progress coalesced for a slow reader, results and
// the summary always kept) and are written in order; Finish waits until
// every waiting event is written. A client whose write has been in flight
// for Limits.max_reader_stall_seconds has stopped reading: its run is
// cancelled and the stream ends at once with RESOURCE_EXHAUSTED
// (CheckReader, called by the service's ReaderWatch). The run's observers
// (run_observer.h: the store, the metrics) see every event the runner
// produced, uncoalesced, up to the run's end and nothing after it (a run
// cancelled while it samples goes on until the runner sees the cancel).
//
// The stream is written by a StreamWriter (server/common/stream_writer.h).
// Lifetime: its reactor (NewReactor) is owned by gRPC and holds a
// shared_ptr to RunCall; its queue holds another while the run waits or
// runs. After OnDone RunCall stops writing, but observers still see the run
// to its end. The stream's slot of ClientStreams is released at OnDone.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "grpcpp/grpcpp.h"
#include "kbench/v1/kbench.grpc.pb.h"
#include "server/common/stream_writer.h"
#include "server/front/client_streams.h"
#include "server/front/event_buffer.h"
#include "server/front/reader_watch.h"
#include "server/front/run_queue.h"
#include "server/identity/principal.h"
#include "server/run/run_observer.h"
#include "server/run/run_plan.h"
#include "server/run/run_sink.h"

namespace kbench::server {

class RunCall final : public QueuedRun,
                      public RunSink,
                      public ReaderWatch::Watched,
                      private StreamWriter<v1::RunEvent, EventBuffer> {
 public:
  // `stream_slot` is held until the RPC is done; `reader_stall` is
  // Limits.max_reader_stall_seconds.
  RunCall(std::string run_id, identity::Principal principal, std::string description,
          AdmittedRun run, RunQueue& queue, std::vector<RunObserver*> observers,
          ClientStreams::Slot stream_slot, std::chrono::duration<double> reader_stall);

  // The reactor of `call`'s RPC, for the service to return.
  static grpc::ServerWriteReactor<v1::RunEvent>* NewReactor(std::shared_ptr<RunCall> call);

  const std::string& run_id() const override { return run_id_; }
  // Who asked for the run.
  const identity::Principal& principal() const { return principal_; }

  // QueuedRun:
  v1::RunRequest Request() const override;
  QueueTicket Ticket() const override;
  void Queued(uint32_t position, uint32_t running, double eta_seconds) override;
  bool Run(Executor& executor) override;
  void Abandon(const absl::Status& why) override;

  // RunSink:
  void Emit(v1::RunEvent event) override;
  bool Cancelled() const override { return cancelled_; }

  // ReaderWatch::Watched: cancels the run of a client that read nothing
  // for reader_stall while a write waited; false once the RPC is finished.
  bool CheckReader(ReaderWatch::Clock::time_point now) override;

  // Ends the RPC once the queued events are written; the first call wins
  // and is the one observers see.
  void Finish(const absl::Status& status);

  // The server ends the run (shutdown): it stops, and the stream ends with
  // `why` once what waits is written.
  void ServerCancelled(const absl::Status& why);

 private:
  using Writer = StreamWriter<v1::RunEvent, EventBuffer>;

  // Writer: the client went away (a failed write: the run stops when it
  // next checks; a cancel: the run ends CANCELLED), or the RPC is done.
  void OnWriteFailed() override;
  void OnCancel() override;
  void OnDone() override;

  // Stops the run (the device moves on) and drops what waits for the client.
  void StopRun();

  const std::string run_id_;
  const identity::Principal principal_;
  const std::string description_;
  const AdmittedRun run_;
  RunQueue& queue_;
  const std::vector<RunObserver*> observers_;
  const std::chrono::duration<double> reader_stall_;
  std::atomic<bool> cancelled_{false};
  // Held while observers are told of the run, so that none is told of it
  // after its end (observers_told_end_).
  std::mutex observers_mu_;
  bool observers_told_end_ = false;
  ClientStreams::Slot stream_slot_;  // released at OnDone
};

}  // namespace kbench::server
