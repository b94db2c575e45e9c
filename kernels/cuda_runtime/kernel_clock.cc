#include "kernels/cuda_runtime/kernel_clock.h"

#include <cupti.h>

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <new>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "kernels/common/status_macros.h"
#include "kernels/cuda_runtime/cuda_status.h"

namespace kbench::kernels::cuda_runtime {
namespace {

// What CUPTI traces while attached: the work a host call can enqueue on a
// stream.
constexpr CUpti_ActivityKind kTraced[] = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
                                          CUPTI_ACTIVITY_KIND_MEMSET, CUPTI_ACTIVITY_KIND_MEMCPY};
// The host calls whose correlation IDs tie the records to Begin..End.
constexpr CUpti_CallbackDomain kCalls[] = {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_CB_DOMAIN_DRIVER_API};
constexpr size_t kBufferBytes = 1 << 20;
constexpr size_t kBufferAlign = 8;

absl::Status CuptiError(CUptiResult result, const char* call) {
  const char* text = nullptr;
  if (cuptiGetResultString(result, &text) != CUPTI_SUCCESS || text == nullptr) text = "?";
  return absl::FailedPreconditionError(absl::StrCat("CUPTI: ", call, ": ", text));
}

#define KBENCH_CUPTI_RETURN_IF_ERROR(expr)                                                \
  do {                                                                                    \
    if (const CUptiResult r_ = (expr); r_ != CUPTI_SUCCESS) return CuptiError(r_, #expr); \
  } while (0)

KernelClock* clock_for_callbacks = nullptr;

void CUPTIAPI OnApi(void*, CUpti_CallbackDomain, CUpti_CallbackId, const void* data) {
  const auto* info = static_cast<const CUpti_CallbackData*>(data);
  if (info->callbackSite == CUPTI_API_ENTER)
    clock_for_callbacks->OnApiEnter(info->correlationId);
  else
    clock_for_callbacks->OnApiExit();
}

void CUPTIAPI BufferRequested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(kBufferAlign, kBufferBytes));
  *size = *buffer ? kBufferBytes : 0;
  *max_records = 0;  // as many as fit
}

void CUPTIAPI BufferCompleted(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  CUpti_Activity* record = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
    switch (record->kind) {
      case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
      case CUPTI_ACTIVITY_KIND_KERNEL: {
        const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
        clock_for_callbacks->OnRecord(k->correlationId, k->start, k->end);
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMSET: {
        const auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(record);
        clock_for_callbacks->OnRecord(m->correlationId, m->start, m->end);
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMCPY: {
        const auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
        clock_for_callbacks->OnRecord(m->correlationId, m->start, m->end);
        break;
      }
      default:
        break;
    }
  }
  std::free(buffer);
}

}  // namespace

absl::StatusOr<KernelClock*> KernelClock::Get() {
  static const absl::StatusOr<KernelClock*> clock = []() -> absl::StatusOr<KernelClock*> {
    if (const char* off = std::getenv("KBENCH_KERNEL_CLOCK"); off && std::string_view(off) == "off")
      return absl::FailedPreconditionError("turned off (KBENCH_KERNEL_CLOCK=off)");
    int devices = 0;
    KBENCH_CUDA_RETURN_IF_ERROR(cudaGetDeviceCount(&devices));
    auto* made = new KernelClock();  // lives as long as the process: CUPTI calls into it
    clock_for_callbacks = made;
    made->armed_by_ = std::this_thread::get_id();
    absl::Status tried = made->Attach();
    if (absl::Status detached = made->Detach(); tried.ok()) tried = detached;
    if (!tried.ok()) {
      clock_for_callbacks = nullptr;
      delete made;
      return tried;
    }
    return made;
  }();
  return clock;
}

absl::Status KernelClock::Attach() {
  KBENCH_CUPTI_RETURN_IF_ERROR(cuptiSubscribe(&subscriber_, OnApi, nullptr));
  KBENCH_CUPTI_RETURN_IF_ERROR(cuptiActivityRegisterCallbacks(BufferRequested, BufferCompleted));
  for (CUpti_CallbackDomain domain : kCalls)
    KBENCH_CUPTI_RETURN_IF_ERROR(cuptiEnableDomain(1, subscriber_, domain));
  for (CUpti_ActivityKind kind : kTraced) KBENCH_CUPTI_RETURN_IF_ERROR(cuptiActivityEnable(kind));
  return absl::OkStatus();
}

absl::Status KernelClock::Detach() {
  if (subscriber_ == nullptr) return absl::OkStatus();  // never attached
  for (CUpti_ActivityKind kind : kTraced) cuptiActivityDisable(kind);
  // CUPTI detaches safely from the exit of an API call it traces: ask for
  // it, then make a call (OnApiExit finalizes).
  detach_at_exit_.store(true, std::memory_order_release);
  int device = 0;
  const cudaError_t called = cudaGetDevice(&device);
  subscriber_ = nullptr;
  if (detach_at_exit_.exchange(false)) {  // no callback came: detach from here
    KBENCH_CUPTI_RETURN_IF_ERROR(cuptiFinalize());
  }
  if (called != cudaSuccess) return CudaError(called, "cudaGetDevice(&device)", __FILE__, __LINE__);
  return absl::OkStatus();
}

void KernelClock::OnApiExit() {
  // Detach's thread (the one that attached) asks, then waits in its call.
  if (!detach_at_exit_.load(std::memory_order_acquire) || std::this_thread::get_id() != armed_by_)
    return;
  detach_at_exit_.store(false);
  cuptiFinalize();
}

void KernelClock::OnApiEnter(uint32_t correlation_id) {
  std::lock_guard<std::mutex> lock(mu_);
  if (armed_ && std::this_thread::get_id() == armed_by_) correlations_.push_back(correlation_id);
}

void KernelClock::OnRecord(uint32_t correlation_id, uint64_t start_ns, uint64_t end_ns) {
  std::lock_guard<std::mutex> lock(mu_);
  if (std::find(correlations_.begin(), correlations_.end(), correlation_id) == correlations_.end())
    return;
  first_start_ns_ = std::min(first_start_ns_, start_ns);
  last_end_ns_ = std::max(last_end_ns_, end_ns);
  ++records_;
}

absl::Status KernelClock::Begin() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (armed_) return absl::InternalError("KernelClock: Begin twice without End");
    correlations_.clear();
    first_start_ns_ = std::numeric_limits<uint64_t>::max();
    last_end_ns_ = 0;
    records_ = 0;
  }
  if (subscriber_ == nullptr) {
    armed_by_ = std::this_thread::get_id();
    if (absl::Status on = Attach(); !on.ok()) {
      Detach().IgnoreError();
      return on;
    }
  } else if (std::this_thread::get_id() != armed_by_) {
    return absl::InternalError("KernelClock: Begin from a thread other than the one attached");
  }
  std::lock_guard<std::mutex> lock(mu_);
  armed_ = true;
  return absl::OkStatus();
}

absl::StatusOr<double> KernelClock::End(cudaStream_t stream) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!armed_) return absl::InternalError("KernelClock: End without Begin");
    armed_ = false;
  }
  const cudaError_t synced = cudaStreamSynchronize(stream);
  // Forced: the buffers in use come back too, so every record of the
  // finished work is in before the span is read.
  const CUptiResult flushed = synced == cudaSuccess
                                  ? cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED)
                                  : CUPTI_SUCCESS;
  if (synced != cudaSuccess)
    return CudaError(synced, "cudaStreamSynchronize(stream)", __FILE__, __LINE__);
  if (flushed != CUPTI_SUCCESS) return CuptiError(flushed, "cuptiActivityFlushAll");
  std::lock_guard<std::mutex> lock(mu_);
  if (records_ == 0 || last_end_ns_ < first_start_ns_)
    return absl::InternalError(absl::StrCat("KernelClock: CUPTI recorded none of the ",
                                            correlations_.size(),
                                            " calls' work between Begin and End"));
  return double(last_end_ns_ - first_start_ns_) * 1e-6;
}

absl::Status KernelClock::Release() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (armed_) return absl::InternalError("KernelClock: Release between Begin and End");
  }
  if (subscriber_ != nullptr && std::this_thread::get_id() != armed_by_)
    return absl::InternalError("KernelClock: Release from a thread other than the one attached");
  return Detach();
}

}  // namespace kbench::kernels::cuda_runtime
