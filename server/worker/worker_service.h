// The Worker service of kbench-worker (proto/kbench/worker/v1/worker.proto)
// over the worker's one device. Reactions never block: Describe answers from
// the executor, Execute admits the resolved request again (a request the
// front admitted passes unchanged) and queues the run for the run thread,
// which runs one run at a time through the LocalExecutor (runner.h) and
// ends each stream with a RunEnd. Compile checks the kernel's #includes
// again (the sandbox's first line of defence must not rest on the front
// alone) and compiles on a small pool of threads.
//
// After a run that left the device unusable (a sticky CUDA error), the run
// thread waits for that run's stream to be done and calls device_lost: the
// process must exit (exit_codes.h kExitDeviceLost) so that the front starts
// a new one. It takes no further run.
//
// Cancel finds the run waiting or running by its id and cancels its stream
// (ExecuteStream::CancelRun); the run thread then ends the run and its
// stream with CANCELLED.
//
// Threading: gRPC's threads call the RPCs; one run thread of its own runs
// the runs. The destructor waits for the run in progress to end.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "kbench/worker/v1/worker.grpc.pb.h"
#include "server/common/task_pool.h"
#include "server/run/run_plan.h"
#include "server/worker/execute_stream.h"
#include "server/worker/local_executor.h"

namespace kbench::server::worker {

class WorkerService final : public kbench::worker::v1::Worker::CallbackService {
 public:
  // `executor` must outlive the service. device_count: what Describe
  // reports. Fault requests are refused (PERMISSION_DENIED) unless
  // enable_fault_injection.
  WorkerService(LocalExecutor& executor, uint32_t device_count, bool enable_fault_injection,
                std::function<void()> device_lost);
  ~WorkerService() override;

  grpc::ServerUnaryReactor* Describe(grpc::CallbackServerContext* context,
                                     const kbench::worker::v1::DescribeRequest* request,
                                     kbench::worker::v1::DescribeResponse* response) override;
  grpc::ServerWriteReactor<kbench::worker::v1::WorkerEvent>* Execute(
      grpc::CallbackServerContext* context,
      const kbench::worker::v1::ExecuteRequest* request) override;
  grpc::ServerUnaryReactor* Cancel(grpc::CallbackServerContext* context,
                                   const kbench::worker::v1::CancelRequest* request,
                                   kbench::worker::v1::CancelResponse* response) override;
  // Compiles on one of kCompileThreads threads of its own, beside any run
  // (a compile never touches the device).
  grpc::ServerUnaryReactor* Compile(grpc::CallbackServerContext* context,
                                    const kbench::v1::CompileKernelRequest* request,
                                    kbench::v1::CompileFacts* response) override;

  static constexpr size_t kCompileThreads = 2;
  static constexpr size_t kMaxQueuedCompiles = 16;

 private:
  struct QueuedRun {
    std::shared_ptr<ExecuteStream> stream;
    server::AdmittedRun run;
    std::string run_id;
  };

  void RunLoop();
  // Runs one run to its end; false if the device is lost.
  bool RunOne(QueuedRun& queued);

  LocalExecutor& executor_;
  const uint32_t device_count_;
  const bool enable_fault_injection_;
  const std::function<void()> device_lost_;

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<QueuedRun> queue_;
  // The run the run thread is running, for Cancel.
  std::string running_id_;
  std::shared_ptr<ExecuteStream> running_stream_;
  bool stopping_ = false;
  std::thread run_thread_;
  // Declared last: destroyed first, finishing the compiles it holds.
  server::TaskPool compiles_{kCompileThreads, kMaxQueuedCompiles};
};

}  // namespace kbench::server::worker
