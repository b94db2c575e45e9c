#include "kernels/cuda_runtime/kernel_clock_c_api.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstring>

#include "absl/strings/string_view.h"
#include "kernels/cuda_runtime/kernel_clock.h"

namespace {

int Fail(const absl::Status& status, char* why, size_t why_bytes) {
  if (why != nullptr && why_bytes > 0) {
    const absl::string_view text = status.message();
    const size_t n = std::min(text.size(), why_bytes - 1);
    std::memcpy(why, text.data(), n);
    why[n] = '\0';
  }
  return -1;
}

}  // namespace

using kbench::kernels::cuda_runtime::KernelClock;

extern "C" int kbench_kernel_clock_begin(char* why, size_t why_bytes) {
  const absl::StatusOr<KernelClock*> clock = KernelClock::Get();
  if (!clock.ok()) return Fail(clock.status(), why, why_bytes);
  const absl::Status begun = (*clock)->Begin();
  return begun.ok() ? 0 : Fail(begun, why, why_bytes);
}

extern "C" int kbench_kernel_clock_end(void* stream, double* ms, char* why, size_t why_bytes) {
  const absl::StatusOr<KernelClock*> clock = KernelClock::Get();
  if (!clock.ok()) return Fail(clock.status(), why, why_bytes);
  const absl::StatusOr<double> span = (*clock)->End(static_cast<cudaStream_t>(stream));
  if (!span.ok()) return Fail(span.status(), why, why_bytes);
  *ms = *span;
  return 0;
}

extern "C" int kbench_kernel_clock_release(char* why, size_t why_bytes) {
  const absl::StatusOr<KernelClock*> clock = KernelClock::Get();
  if (!clock.ok()) return Fail(clock.status(), why, why_bytes);
  const absl::Status released = (*clock)->Release();
  return released.ok() ? 0 : Fail(released, why, why_bytes);
}
