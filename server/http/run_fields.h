// How the dashboard names what a run is about: its learner and its dtype;
// its problem is its op's (proto::ops::DescribeProblemOf). Runs of one learner and
// one problem are comparable; the tables group by these names.
#pragma once

#include <string>

#include "kbench/v1/history.pb.h"
#include "server/store/learner.h"

namespace kbench::server::http {

// The run's learner (store::LearnerOf).
using store::LearnerOf;
inline std::string LearnerOf(const v1::RunRecord& run) { return LearnerOf(run.user(), run.peer()); }

// "fp32", "fp16" or "bf16"; an unspecified dtype is the default, fp32.
std::string DTypeNameOf(v1::DType dtype);

}  // namespace kbench::server::http
