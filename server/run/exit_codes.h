// How a kbench-worker process ends, so that its supervisor in the front
// (server/front/worker_executor.h) can say what happened. A worker also ends
// on a signal: SIGTERM (stopped by the front, exit status 0 once handled),
// SIGKILL (killed by the front after a stall, or by PR_SET_PDEATHSIG when
// the front died) or a crash.
#pragma once

namespace kbench::server {

// Stopped on SIGTERM.
inline constexpr int kExitStopped = 0;
// Could not start: bad flags, the parent already gone, the device could not
// be opened, or the socket could not be served. The reason is logged.
inline constexpr int kExitStartFailed = 1;
// The device became unusable during a run (a sticky CUDA error): only a new
// process can use it again, so the worker ended that run's stream with the
// error and exited.
inline constexpr int kExitDeviceLost = 3;
// Fault injection (kbench.v1.FAULT_WORKER_EXIT): exited on purpose after
// the first sample.
inline constexpr int kExitFault = 7;

}  // namespace kbench::server
