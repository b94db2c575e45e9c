// What every CPU workload shares: a float output, poisoned with NaN; the
// op's device reference (kernels/<op>/simple_reference.h), computed on first use
// and compared with the output element by element; and a sample timed with
// the host's steady clock around one call of the variant on the calling
// thread. A subclass writes RunVariant, RunReference and Inputs for its op;
// its factory sizes the inputs and draws them with FillInputs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "kernels/seeded_input.h"
#include "server/worker/device.h"

namespace kbench::server::worker::backends::cpu {

// Sizes a vector without writing its elements: the pages of a large buffer
// are first touched by whoever fills it (FillSeededInput, in chunks; the
// poisoning of the output), so that sizing costs nothing and a cancelled
// preparation stops within a chunk.
template <typename T>
struct UnwrittenAllocator : std::allocator<T> {
  template <typename U>
  struct rebind {
    using other = UnwrittenAllocator<U>;
  };
  template <typename U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;
  }
  template <typename U, typename... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};
// A CPU workload's large buffer: inputs, output, reference, scratch.
using HostBuffer = std::vector<float, UnwrittenAllocator<float>>;

// Fills `out` with elements [0, out.size()) of the seed's `stream`
// (kernels/seeded_input.h) in chunks of about a millisecond, asking `go_on`
// before each: a cancelled run stops making a large input within a chunk
// and this returns go_on's status.
absl::Status FillSeededInput(uint64_t seed, kernels::InputStream stream, std::span<float> out,
                             const GoOn& go_on);

class CpuWorkload : public Workload {
 public:
  explicit CpuWorkload(size_t output_elements) : output_(output_elements) {}

  absl::Status PoisonOutput() final;
  absl::Status Run(int variant) final;
  absl::StatusOr<double> TimeSample(int variant, v1::TimingMode mode) final;
  std::string TimingMethod(v1::TimingMode mode) const final;
  absl::StatusOr<kernels::Comparison> CompareWithReference(
      const kernels::ElementTolerance& tolerance) final;
  absl::Status Read(proto::ops::OutputBuffer buffer, int64_t first, std::span<float> out) final;
  absl::Status Redraw(uint64_t seed) final;
  // Draws every input from `seed` (FillSeededInput, asking `go_on`) and
  // forgets the reference: Prepare's fill, and Redraw's.
  absl::Status FillInputs(uint64_t seed, const GoOn& go_on);

 protected:
  // The op's inputs, each with the stream of the seed it is drawn from.
  virtual std::vector<std::pair<kernels::InputStream, std::span<float>>> Inputs() = 0;
  // Runs the variant at position `variant` of Problem::variants once,
  // writing output_.
  virtual void RunVariant(int variant) = 0;
  // Writes the op's simple reference of the inputs to `reference`
  // (output_.size() floats).
  virtual void RunReference(std::span<float> reference) = 0;

  HostBuffer output_;

 private:
  const HostBuffer& Reference();

  HostBuffer reference_;  // empty until first used
};

}  // namespace kbench::server::worker::backends::cpu
