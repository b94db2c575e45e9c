// The ABI check of a compiled kernel, read from its PTX without a GPU: the
// module's .entry declarations and their parameter lists
// (".visible .entry name(.param .u64 name_param_0, ...)"), compared with the
// op's ABI (proto/ops/kernel_abi.h); and the functions it calls outside
// itself (".extern .func ... name"), checked against the few a learner's
// kernel may call. The same checks for CUDA C++ (NVRTC's PTX) and for PTX a
// learner wrote. Pure.
#pragma once

#include <cstdint>
#include <string>
#include <vector>
#include "absl/strings/string_view.h"

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "proto/ops/kernel_abi.h"

namespace kbench::server::worker::compile {

struct PtxParameter {
  std::string type;  // ".u64", ".f32", ".b8" (an array: bytes says its size)
  uint32_t bytes = 0;
  // Declared ".ptr .global": a pointer to global memory (what Triton
  // declares its pointers as, its hidden scratch pointers among them).
  bool global_pointer = false;
};

struct PtxEntry {
  std::string name;
  std::vector<PtxParameter> parameters;
};

// The .entry declarations of `ptx`, in order; INVALID_ARGUMENT when one
// cannot be read (an unterminated parameter list, an unknown type).
absl::StatusOr<std::vector<PtxEntry>> ReadPtxEntries(absl::string_view ptx);

// OK when `entries` has `entry` with abi's parameter count and sizes, or
// those followed by Triton's proto::ops::kTritonHiddenPointers global pointers;
// otherwise INVALID_ARGUMENT saying what was expected and what was found,
// e.g. "entry 'add' takes 3 parameters (8, 8, 8 bytes); vector_add kernels
// take 4: (const kbench_t* a, ...)" or "no kernel named 'add' in the
// module; its kernels: _Z3addPKfS0_Pfx (declare it extern \"C\")".
absl::Status CheckEntryAbi(const std::vector<PtxEntry>& entries, const std::string& entry,
                           const proto::ops::KernelAbi& abi);

// The functions outside the module that `ptx` declares (".extern .func"),
// in order: e.g. vprintf (printf), __assertfail (assert), malloc.
std::vector<std::string> ReadPtxExternalFunctions(absl::string_view ptx);

// OK when every function outside the module that `ptx` calls is printf's
// (vprintf) or assert's (__assertfail); otherwise INVALID_ARGUMENT naming
// the first other and why: malloc and free would keep state on the device
// heap from one launch to the next (a cache of earlier outputs), and the
// device runtime's launches (dynamic parallelism) are not linked.
absl::Status CheckExternalCalls(absl::string_view ptx);

}  // namespace kbench::server::worker::compile
