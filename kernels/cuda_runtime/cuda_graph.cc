#include "kernels/cuda_runtime/cuda_graph.h"

#include <memory>
#include <utility>

#include "kernels/common/status_macros.h"
#include "kernels/cuda_runtime/cuda_status.h"

namespace kbench::kernels::cuda_runtime {
namespace {

struct GraphDeleter {
  void operator()(cudaGraph_t graph) const { cudaGraphDestroy(graph); }
};
using GraphPtr = std::unique_ptr<std::remove_pointer_t<cudaGraph_t>, GraphDeleter>;

}  // namespace

absl::StatusOr<GraphExec> GraphExec::Capture(
    cudaStream_t stream, absl::FunctionRef<absl::Status(cudaStream_t)> enqueue) {
  KBENCH_CUDA_RETURN_IF_ERROR(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  const absl::Status enqueued = enqueue(stream);
  cudaGraph_t raw = nullptr;
  const cudaError_t ended = cudaStreamEndCapture(stream, &raw);
  GraphPtr graph(raw);
  KBENCH_RETURN_IF_ERROR(enqueued);
  KBENCH_CUDA_RETURN_IF_ERROR(ended);
  cudaGraphExec_t exec = nullptr;
  KBENCH_CUDA_RETURN_IF_ERROR(cudaGraphInstantiate(&exec, graph.get(), 0));
  return GraphExec(exec);
}

GraphExec::GraphExec(GraphExec&& other) noexcept : exec_(std::exchange(other.exec_, nullptr)) {}

GraphExec& GraphExec::operator=(GraphExec&& other) noexcept {
  if (this != &other) {
    Reset();
    exec_ = std::exchange(other.exec_, nullptr);
  }
  return *this;
}

GraphExec::~GraphExec() { Reset(); }

void GraphExec::Reset() {
  if (exec_ != nullptr) cudaGraphExecDestroy(exec_);
  exec_ = nullptr;
}

absl::Status GraphExec::Launch(cudaStream_t stream) const {
  KBENCH_CUDA_RETURN_IF_ERROR(cudaGraphLaunch(exec_, stream));
  return absl::OkStatus();
}

}  // namespace kbench::kernels::cuda_runtime
