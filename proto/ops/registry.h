// The ops kbench offers, in the order the API, the CLI and the reports list
// them. Adding an op: write its file (see vector_add_op.cc) and add it to
// AllOps() in registry.cc.
#pragma once

#include <string_view>
#include <vector>

#include "kbench/v1/kbench.pb.h"
#include "proto/ops/op.h"

namespace kbench::ops {

const std::vector<const Op*>& AllOps();
// The op named `name` ("attention"), or nullptr.
const Op* FindOp(std::string_view name);
// The op of the request's problem, or nullptr when it names none.
const Op* OpOf(const v1::RunRequest& request);

// What `backend` offers of every op, as ServerInfo lists it: the variants it
// runs, the dtypes any of them runs, and (attention) the head dims.
std::vector<v1::OpInfo> OffersOf(std::string_view backend);

}  // namespace kbench::ops
