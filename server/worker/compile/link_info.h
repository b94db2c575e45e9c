// The compile facts nvJitLink reports with -verbose (ptxas's info lines),
// read without a GPU: registers, spills, stack, shared and local memory of
// one entry, and the module's global memory. Pure.
//
// The lines it reads, as CUDA 13.0's nvJitLink writes them:
//   ptxas info    : 0 bytes gmem
//   ptxas info    : Function properties for my_add
//   ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
//   ptxas info    : Used 10 registers, used 0 barriers
//   ptxas info    : Used 14 registers, used 1 barriers, 4096 bytes smem
// (the smem part only when the kernel declares shared memory). The stack
// frame is the local memory per thread, spills included. nvJitLink's own
// summary lines after them ("info    : used 14 registers, ..., 5120 bytes
// smem") count the block's system-reserved shared memory too and are not
// read.
#pragma once

#include <string_view>

#include "kbench/v1/kbench.pb.h"

namespace kbench::server::worker::compile {

// Sets registers_per_thread, spill_store_bytes, spill_load_bytes,
// static_shared_memory_bytes, local_memory_bytes and global_memory_bytes of
// `facts` from `info` for the function `entry`; fields it finds nothing
// for stay as they are.
void ReadLinkInfo(std::string_view info, std::string_view entry, v1::CompileFacts& facts);

}  // namespace kbench::server::worker::compile
