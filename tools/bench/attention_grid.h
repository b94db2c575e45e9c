// The attention benchmark's shapes: the one list the perf lab's two sides
// use. kbench_attention_bench times them; the Python side (attention_peers.py,
// attention_table.py, attention_gpu.sh) reads them from attention_grid.json,
// which is this list as `kbench_attention_bench --print-grid` prints it (a
// ctest, attention_bench_points, checks that the committed file is).
//   the FlashAttention grid: B * N = 16384 tokens, H * d = 2048,
//       N in {512, ..., 16384}, d in {64, 128, 256}, by d then N;
//   the low-parallelism shapes (issue 12): B * H in 1..8 and N in
//       1000..8192, where the grid's query blocks would leave most SMs idle;
//       odd N (1000, 3000, 5000) included, each d twice.
// Every dtype fused attention runs on CUDA but fp8 is measured
// (BenchDTypes), in kernels/dtype.h's order.
#pragma once

#include <string>
#include <vector>

#include "kernels/attention/attention_shape.h"
#include "kernels/dtype.h"

namespace kbench::tools::bench {

// The dtypes the attention op's fused variant runs on CUDA (the registry's
// variant table), in kernels/dtype.h's order, but fp8: the bench compares
// fused with its peers in each. fp8 has no peer here (PyTorch's SDPA takes
// no fp8) and no naive of the bench's (naive widens fp8 first); the server
// times it (`kbench attention --dtype fp8`) beside fp16.
std::vector<kernels::DType> BenchDTypes();

// The grid's shapes (causal false), by d then N.
std::vector<kernels::AttentionShape> FlashAttentionGrid();

// The low-parallelism shapes (causal false).
std::vector<kernels::AttentionShape> LowParallelismShapes();

// {"dtypes": ["fp32", ...], "grid": [[B, H, N, d], ...], "low_par": [...]},
// indented, with a final newline: the text of attention_grid.json.
std::string GridJson();

}  // namespace kbench::tools::bench
