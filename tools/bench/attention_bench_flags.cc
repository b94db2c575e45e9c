#include "tools/bench/attention_bench_flags.h"

#include <algorithm>
#include <cstdint>

#include "CLI/CLI.hpp"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "kernels/common/status_macros.h"
#include "kernels/cuda/attention/attention_split_kv.h"
#include "tools/bench/attention_grid.h"

namespace kbench::tools::bench {
namespace {

using kernels::AttentionShape;

// "B,H,N,D" of `flag`, each at least 1.
absl::StatusOr<AttentionShape> ParseShape(const std::string& flag, const std::string& text) {
  const std::vector<std::string> parts = absl::StrSplit(text, ',');
  int64_t v[4] = {};
  if (parts.size() != 4)
    return absl::InvalidArgumentError(absl::StrCat(flag, ": '", text, "' is not B,H,N,D"));
  for (size_t i = 0; i < 4; ++i)
    if (!absl::SimpleAtoi(parts[i], &v[i]) || v[i] < 1)
      return absl::InvalidArgumentError(
          absl::StrCat(flag, ": '", parts[i], "' in '", text, "' is not an integer of at least 1"));
  AttentionShape s;
  s.batch = v[0];
  s.heads = v[1];
  s.seq_len = v[2];
  s.head_dim = v[3];
  return s;
}

std::vector<std::string> DTypeNames() {
  std::vector<std::string> names;
  for (kernels::DType dtype : BenchDTypes()) names.push_back(kernels::DTypeName(dtype));
  return names;
}

}  // namespace

bool Options::Selected(const std::string& name) const {
  return variants.empty() || std::find(variants.begin(), variants.end(), name) != variants.end();
}

absl::StatusOr<Options> ParseFlags(int argc, char** argv) {
  CLI::App app{
      "kbench_attention_bench: the attention kernels alone on one GPU, checked by the op's\n"
      "verifier and timed by the CUDA backend's cold samples; one JSON line a variant\n"
      "(tools/bench/README.md)."};
  Options o;
  bool grid = false;
  std::vector<std::string> shape_lists, dtype_names, variants;
  std::vector<int64_t> dims;
  std::string causal = "both";
  app.add_flag("--grid", grid, "the FlashAttention grid (attention_grid.json)");
  app.add_option("--shapes,--shape", shape_lists, "shapes after the grid's: \"B,H,N,D;...\"")
      ->allow_extra_args(false);
  app.add_option("--dtypes", dtype_names, "dtypes, comma-separated (default: all)")
      ->delimiter(',')
      ->allow_extra_args(false)
      ->check(CLI::IsMember(DTypeNames()));
  app.add_option("--dims", dims, "only the shapes of these head dims, comma-separated")
      ->delimiter(',')
      ->allow_extra_args(false);
  app.add_option("--causal", causal, "0, 1 or both")->check(CLI::IsMember({"0", "1", "both"}));
  app.add_flag("--mma-configs", o.mma_configs, "time fused's every kernel and tiling too");
  app.add_flag("--list", o.list, "print the points and time nothing");
  app.add_flag("--print-grid", o.print_grid, "print attention_grid.json and time nothing");
  app.add_flag("--once", o.once, "run and check each variant once, time nothing");
  app.add_option("--variants", variants, "only these variants, comma-separated")
      ->delimiter(',')
      ->allow_extra_args(false)
      ->check(CLI::Validator(
          [](std::string& name) -> std::string {
            if (name == "naive" || name == "fused" || name.starts_with("fused-")) return "";
            return "unknown variant " + name + " (naive, fused or fused-<config>)";
          },
          "VARIANT"));
  app.add_option("--splits", o.splits, "time fused-split<S> for these key splits too")
      ->delimiter(',')
      ->allow_extra_args(false)
      ->check(CLI::Range(1, kernels::cuda::kMaxKvSplits));
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    return absl::CancelledError(app.help());
  } catch (const CLI::ParseError& e) {
    return absl::InvalidArgumentError(e.what());
  }

  for (const std::string& name : dtype_names)
    o.dtypes.push_back(*kernels::DTypeNamed(name));  // IsMember checked it
  if (o.dtypes.empty()) o.dtypes = BenchDTypes();
  o.causal = causal == "both" ? std::vector<bool>{false, true} : std::vector<bool>{causal == "1"};
  for (const std::string& name : variants)
    if (!name.empty()) o.variants.push_back(name);
  if (grid) o.shapes = FlashAttentionGrid();
  for (const std::string& list : shape_lists)
    for (absl::string_view item : absl::StrSplit(list, ';', absl::SkipEmpty())) {
      KBENCH_ASSIGN_OR_RETURN(const AttentionShape s, ParseShape("--shapes", std::string(item)));
      o.shapes.push_back(s);
    }
  if (!dims.empty())
    std::erase_if(o.shapes, [&dims](const AttentionShape& s) {
      return std::find(dims.begin(), dims.end(), s.head_dim) == dims.end();
    });
  return o;
}

std::string PointLines(const Options& options) {
  std::string out;
  for (kernels::DType dtype : options.dtypes)
    for (const AttentionShape& s : options.shapes)
      for (bool causal : options.causal)
        absl::StrAppend(&out, kernels::DTypeName(dtype), " ", s.batch, " ", s.heads, " ", s.seq_len,
                        " ", s.head_dim, " ", int(causal), "\n");
  return out;
}

}  // namespace kbench::tools::bench
