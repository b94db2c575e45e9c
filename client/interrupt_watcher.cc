#include "client/interrupt_watcher.h"

#include <pthread.h>
#include <signal.h>

#include <cstdlib>

#include "client/exit_codes.h"

namespace kbench::client {
namespace {

sigset_t WatchedSignals() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  return signals;
}

}  // namespace

InterruptWatcher::InterruptWatcher() {
  const sigset_t signals = WatchedSignals();
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  thread_ = std::thread([this] { WaitForSignals(); });
}

InterruptWatcher::~InterruptWatcher() {
  stopping_ = true;
  pthread_kill(thread_.native_handle(), SIGTERM);
  thread_.join();
}

InterruptWatcher::Watch::Watch(InterruptWatcher& watcher, grpc::ClientContext* context)
    : watcher_(watcher) {
  std::lock_guard<std::mutex> lock(watcher_.mutex_);
  watcher_.context_ = context;
  if (watcher_.interrupted_) context->TryCancel();
}

InterruptWatcher::Watch::~Watch() {
  std::lock_guard<std::mutex> lock(watcher_.mutex_);
  watcher_.context_ = nullptr;
}

void InterruptWatcher::WaitForSignals() {
  const sigset_t signals = WatchedSignals();
  while (true) {
    int signal = 0;
    if (sigwait(&signals, &signal) != 0) continue;
    if (stopping_) return;
    if (interrupted_.exchange(true)) {
      std::_Exit(static_cast<int>(ExitCode::kInterrupted));
    }
    std::lock_guard<std::mutex> lock(mutex_);
    if (context_ != nullptr) context_->TryCancel();
  }
}

}  // namespace kbench::client
