// Throughput of a run at its median time, judged only against a ceiling
// of the same unit and conditions that the server measured on the device
// (v1::DeviceInfo):
//   bytes, cold:  the DRAM copy bandwidth (copy_bandwidth_gbps);
//   bytes, hot:   the L2-resident copy bandwidth (l2_copy_bandwidth_gbps),
//                 or none: hot samples find their data in cache, and a DRAM
//                 figure is not their ceiling;
//   FLOPs:        the matmul rate of the run's dtype (fp16: matmul_tflops,
//                 bf16: matmul_bf16_tflops), none for fp32.
// With no ceiling, fraction_of_ceiling is 0 and `ceiling` says why. A
// fraction above 1 is kept (it is what was measured) and `ceiling` says the
// run beat the measured ceiling, so "% of ceiling" never passes 100%
// silently.
#pragma once

#include "kbench/v1/kbench.pb.h"
#include "kernels/dtype.h"
#include "proto/ops/op.h"

namespace kbench::server::worker {

v1::Throughput ThroughputOf(const proto::ops::Work& work, double median_ms,
                            const v1::DeviceInfo& device, kernels::DType dtype,
                            v1::TimingMode mode);

}  // namespace kbench::server::worker
