// kbench_attention_bench's command line (CLI11), and the points it names.
//   --grid: the FlashAttention grid (attention_grid.h); --shapes "B,H,N,D;..."
//           and --shape B,H,N,D (each may repeat) add shapes after it.
//   --dtypes (default every dtype of kernels/dtype.h) and --dims (default
//           every d) select a subset, so that a run can be split over calls;
//           the points are dtype by dtype, shape by shape, causal last,
//           exactly those that attention_peers.py runs with the same flags.
//   --causal 0|1|both (default both).
//   --list: print the points ("fp16 32 32 512 64 0": dtype B H N d causal),
//           one a line, and time nothing (no GPU needed).
//   --print-grid: print attention_grid.json (attention_grid.h's GridJson)
//           and time nothing (no GPU needed).
//   --mma-configs: time every kernel and tiling of fused as fused-<config>
//           too (on Hopper the wgmma kernel's configs, and everywhere the
//           mma.sync tilings; fp32: fused-fp32-<config>), each in one pass.
//   --variants: run only the variants of these names (naive, fused,
//           fused-1pass, fused-notail, fused-<config>; default all).
//           Without naive, its scores buffer is never allocated.
//   --splits: time fused with each of these key splits too, as
//           fused-split<S> (S from 1 to kMaxKvSplits, attention_split_kv.h).
//   --once: run each selected variant once with its check and time nothing
//           (for a profiler: attention_ncu.sh).
// A bad flag or value is an error that names it.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "kernels/attention/attention_shape.h"
#include "kernels/dtype.h"

namespace kbench::tools::bench {

struct Options {
  std::vector<kernels::DType> dtypes;
  std::vector<kernels::AttentionShape> shapes;  // the grid's, then the listed ones
  std::vector<bool> causal;
  bool mma_configs = false;
  bool list = false;
  bool print_grid = false;
  std::vector<std::string> variants;  // empty: all
  std::vector<int> splits;
  bool once = false;

  // Whether the variant `name` runs (--variants).
  bool Selected(const std::string& name) const;
};

// The options of argv. A request for --help is returned as a status of code
// kCancelled whose message is the help text; a bad command line as
// INVALID_ARGUMENT naming the flag.
absl::StatusOr<Options> ParseFlags(int argc, char** argv);

// The points in the order the bench times them, one a line, as --list prints
// them.
std::string PointLines(const Options& options);

}  // namespace kbench::tools::bench
