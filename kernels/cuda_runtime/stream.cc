#include "kernels/cuda_runtime/stream.h"

#include <utility>

#include "kernels/cuda_runtime/cuda_status.h"

namespace kbench::kernels::cuda_runtime {

absl::StatusOr<Stream> Stream::Create() {
  cudaStream_t stream = nullptr;
  KBENCH_CUDA_RETURN_IF_ERROR(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  return Stream(stream);
}

Stream::Stream(Stream&& other) noexcept : stream_(std::exchange(other.stream_, nullptr)) {}

Stream& Stream::operator=(Stream&& other) noexcept {
  if (this != &other) {
    Reset();
    stream_ = std::exchange(other.stream_, nullptr);
  }
  return *this;
}

Stream::~Stream() { Reset(); }

void Stream::Reset() {
  if (stream_ != nullptr) cudaStreamDestroy(stream_);
  stream_ = nullptr;
}

absl::Status Stream::Synchronize() const {
  KBENCH_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream_));
  return absl::OkStatus();
}

}  // namespace kbench::kernels::cuda_runtime
