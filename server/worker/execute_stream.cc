#include "server/worker/execute_stream.h"

#include <string>
#include <utility>

namespace kbench::server::worker {
namespace {

kbench::worker::v1::Progress::Step ToProto(server::RunStep step) {
  switch (step) {
    case server::RunStep::kCompile:
      return kbench::worker::v1::Progress::STEP_COMPILE;
    case server::RunStep::kPrepare:
      return kbench::worker::v1::Progress::STEP_PREPARE;
    case server::RunStep::kVerify:
      return kbench::worker::v1::Progress::STEP_VERIFY;
    case server::RunStep::kWarmup:
      return kbench::worker::v1::Progress::STEP_WARMUP;
    case server::RunStep::kSample:
      return kbench::worker::v1::Progress::STEP_SAMPLE;
  }
  return kbench::worker::v1::Progress::STEP_UNSPECIFIED;
}

}  // namespace

grpc::ServerWriteReactor<kbench::worker::v1::WorkerEvent>* ExecuteStream::NewReactor(
    std::shared_ptr<ExecuteStream> stream) {
  StreamWriter* writer = stream.get();  // a private base: converted here, where it is accessible
  return StreamWriter::NewReactor(std::shared_ptr<StreamWriter>(std::move(stream), writer));
}

void ExecuteStream::Emit(kbench::v1::RunEvent event) {
  kbench::worker::v1::WorkerEvent worker_event;
  *worker_event.mutable_event() = std::move(event);
  Push(std::move(worker_event));
}

void ExecuteStream::StepStarted(server::RunStep step, std::string_view variant) {
  const auto now = std::chrono::steady_clock::now();
  if (last_step_ == step && now - last_queued_ < kProgressInterval) return;
  last_step_ = step;
  kbench::worker::v1::WorkerEvent event;
  event.mutable_progress()->set_step(ToProto(step));
  event.mutable_progress()->set_variant(std::string(variant));
  Push(std::move(event));
}

void ExecuteStream::End(const absl::Status& status, bool device_lost) {
  kbench::worker::v1::WorkerEvent event;
  kbench::worker::v1::RunEnd* end = event.mutable_end();
  end->set_code(int(status.code()));
  end->set_message(std::string(status.message()));
  end->set_device_lost(device_lost);
  if (Write(std::move(event))) Finish(absl::OkStatus());
}

void ExecuteStream::Push(kbench::worker::v1::WorkerEvent event) {
  last_queued_ = std::chrono::steady_clock::now();
  Write(std::move(event));
}

void ExecuteStream::OnWriteFailed() {
  cancelled_ = true;
  Finish(absl::CancelledError("the front went away"));
}

void ExecuteStream::OnCancel() {
  cancelled_ = true;
  Drop();
  Finish(absl::CancelledError("cancelled by the front"));
}

}  // namespace kbench::server::worker
