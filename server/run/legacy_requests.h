// The op-specific RPCs of before RunRequest (RunVectorAdd, RunAttention):
// their requests as the RunRequest that Run takes, field for field, so that
// one admission serves every RPC.
#pragma once

#include "kbench/v1/kbench.pb.h"

namespace kbench::server {

v1::RunRequest ToRunRequest(const v1::VectorAddRequest& request);
v1::RunRequest ToRunRequest(const v1::AttentionRequest& request);

}  // namespace kbench::server
