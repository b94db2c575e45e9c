// GraphExec: an executable CUDA graph owned by one object, destroyed by its
// destructor; move-only. Made by capturing what a callback enqueues on a
// stream, replayed with one launch: the device then runs the captured
// kernels back to back without the host's per-launch gaps (hot samples).
// The graph refers to the buffers the captured work used: they must outlive
// it. Threading: one thread at a time.
#pragma once

#include <cuda_runtime_api.h>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace kbench::kernels::cuda_runtime {

class GraphExec {
 public:
  // Captures everything `enqueue` puts on `stream` (which must be idle of
  // other capture) and instantiates it. Capture always ends, also when
  // `enqueue` fails; its error is returned then.
  static absl::StatusOr<GraphExec> Capture(cudaStream_t stream,
                                           absl::FunctionRef<absl::Status(cudaStream_t)> enqueue);

  GraphExec() = default;
  GraphExec(GraphExec&& other) noexcept;
  GraphExec& operator=(GraphExec&& other) noexcept;
  GraphExec(const GraphExec&) = delete;
  GraphExec& operator=(const GraphExec&) = delete;
  ~GraphExec();

  // Enqueues one replay on `stream`; does not wait.
  absl::Status Launch(cudaStream_t stream) const;
  // Whether it holds a graph (not default-constructed or moved from).
  explicit operator bool() const { return exec_ != nullptr; }

 private:
  explicit GraphExec(cudaGraphExec_t exec) : exec_(exec) {}
  void Reset();

  cudaGraphExec_t exec_ = nullptr;
};

}  // namespace kbench::kernels::cuda_runtime
