#include "proto/ops/kernel_arguments.h"

#include <cstring>

#include "absl/strings/str_cat.h"

namespace kbench::proto::ops {

absl::StatusOr<std::unique_ptr<KernelArgumentPack>> KernelArgumentPack::Make(
    const KernelAbi& abi, const v1::RunRequest& request, std::span<void* const> buffers) {
  if (abi.arguments == nullptr)
    return absl::InternalError(absl::StrCat(abi.op, " kernels have no argument table"));
  const std::vector<KernelArgument> arguments = abi.arguments(request);
  if (arguments.size() != abi.parameters.size())
    return absl::InternalError(absl::StrCat(abi.op, "'s argument table has ", arguments.size(),
                                            " arguments; its ABI ", abi.parameters.size(),
                                            " parameters ", abi.Signature()));
  std::unique_ptr<KernelArgumentPack> pack(new KernelArgumentPack());
  pack->slots_.assign(arguments.size(), 0);
  for (size_t i = 0; i < arguments.size(); ++i) {
    const KernelArgument& a = arguments[i];
    if (a.bytes() != abi.parameters[i].bytes)
      return absl::InternalError(
          absl::StrCat(abi.op, "'s argument ", i, " is ", a.bytes(), " bytes; its parameter '",
                       abi.parameters[i].declaration, "' ", abi.parameters[i].bytes));
    void* slot = &pack->slots_[i];
    switch (a.kind) {
      case KernelArgument::Kind::kBuffer: {
        if (a.buffer < 0 || size_t(a.buffer) >= buffers.size())
          return absl::InternalError(absl::StrCat(abi.op, "'s argument ", i, " is buffer ",
                                                  a.buffer, "; the workload has ", buffers.size()));
        void* pointer = buffers[size_t(a.buffer)];
        std::memcpy(slot, &pointer, sizeof pointer);
        break;
      }
      case KernelArgument::Kind::kInt32: {
        const int32_t v = int32_t(a.integer);
        if (int64_t(v) != a.integer)
          return absl::InternalError(absl::StrCat(abi.op, "'s argument ", i, " (",
                                                  abi.parameters[i].declaration, ") ", a.integer,
                                                  " does not fit 32 bits"));
        std::memcpy(slot, &v, sizeof v);
        break;
      }
      case KernelArgument::Kind::kInt64:
        std::memcpy(slot, &a.integer, sizeof a.integer);
        break;
      case KernelArgument::Kind::kFloat32:
        std::memcpy(slot, &a.real, sizeof a.real);
        break;
    }
    pack->sizes_.push_back(a.bytes());
  }
  for (uint64_t& slot : pack->slots_) pack->pointers_.push_back(&slot);
  return pack;
}

void KernelArgumentPack::AppendNullPointers(size_t count) {
  slots_.resize(slots_.size() + count, 0);
  sizes_.resize(sizes_.size() + count, 8);
  pointers_.clear();
  for (uint64_t& slot : slots_) pointers_.push_back(&slot);
}

std::span<const uint8_t> KernelArgumentPack::Bytes(size_t i) const {
  return {reinterpret_cast<const uint8_t*>(&slots_[i]), sizes_[i]};
}

}  // namespace kbench::proto::ops
