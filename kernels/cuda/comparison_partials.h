// The host's combine step of the device comparison (comparison_kernel.h):
// the per-block partials of LaunchCompare merged into one
// kernels::Comparison, as Comparison::Merge does. Host C++20 only.
#pragma once

#include <span>

#include "kernels/cuda/comparison_kernel.h"
#include "kernels/verify.h"

namespace kbench::kernels::cuda {

Comparison MergePartials(std::span<const ComparisonPartial> partials);

}  // namespace kbench::kernels::cuda
