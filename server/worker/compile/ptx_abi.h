// The ABI check of a compiled kernel, read from its PTX without a GPU: the
// module's .entry declarations and their parameter lists
// (".visible .entry name(.param .u64 name_param_0, ...)"), compared with the
// op's ABI (proto/ops/kernel_abi.h). The same check for CUDA C++ (NVRTC's
// PTX) and for PTX a learner wrote. Pure.
#pragma once

#include <cstdint>
#include <string>
#include <vector>
#include "absl/strings/string_view.h"

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "proto/ops/kernel_abi.h"

namespace kbench::compile {

struct PtxParameter {
  std::string type;  // ".u64", ".f32", ".b8" (an array: bytes says its size)
  uint32_t bytes = 0;
};

struct PtxEntry {
  std::string name;
  std::vector<PtxParameter> parameters;
};

// The .entry declarations of `ptx`, in order; INVALID_ARGUMENT when one
// cannot be read (an unterminated parameter list, an unknown type).
absl::StatusOr<std::vector<PtxEntry>> ReadPtxEntries(absl::string_view ptx);

// OK when `entries` has `entry` with abi's parameter count and sizes;
// otherwise INVALID_ARGUMENT saying what was expected and what was found,
// e.g. "entry 'add' takes 3 parameters (8, 8, 8 bytes); vector_add kernels
// take 4: (const kbench_t* a, ...)" or "no kernel named 'add' in the
// module; its kernels: _Z3addPKfS0_Pfx (declare it extern \"C\")".
absl::Status CheckEntryAbi(const std::vector<PtxEntry>& entries, const std::string& entry,
                           const ops::KernelAbi& abi);

}  // namespace kbench::compile
