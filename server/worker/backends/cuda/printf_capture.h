// PrintfCapture: what kernels print with device printf, captured. The CUDA
// runtime writes a kernel's printf output to the process's stdout (fd 1)
// when the host synchronizes with it; while a PrintfCapture lives, fd 1 is
// an anonymous in-memory file (memfd) instead, and Take() reads and empties
// it. The worker process holds one for its lifetime (its stdout carries
// nothing else); a test holds one around the runs whose output it reads.
// The device buffers at most kPrintfFifoBytes between synchronizations
// (cudaLimitPrintfFifoSize; the rest of a flood is dropped there), and the
// runner keeps at most kMaxKernelOutputBytes of it per variant (runner.h).
// Threading: one capture at a time per process; Take from one thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"

namespace kbench::server::worker::backends::cuda {

inline constexpr size_t kPrintfFifoBytes = size_t(1) << 20;

class PrintfCapture {
 public:
  // Points fd 1 at a new memfd; FAILED_PRECONDITION if a capture is
  // already active, INTERNAL if the file cannot be made.
  static absl::StatusOr<std::unique_ptr<PrintfCapture>> Start();
  PrintfCapture(const PrintfCapture&) = delete;
  PrintfCapture& operator=(const PrintfCapture&) = delete;
  // Gives fd 1 back to what it was.
  ~PrintfCapture();

  // The active capture, or null.
  static PrintfCapture* Active();

  // What was printed since the last Take (flushing stdio first): its first
  // `max_bytes`, and how many bytes there were in all. Empties the file.
  struct Taken {
    std::string text;
    uint64_t bytes = 0;
  };
  Taken Take(size_t max_bytes);

 private:
  PrintfCapture(int file, int saved_stdout) : file_(file), saved_stdout_(saved_stdout) {}
  int file_ = -1;
  int saved_stdout_ = -1;
};

}  // namespace kbench::server::worker::backends::cuda
