// The ops kbench offers, in the order the API, the CLI and the reports list
// them. Adding an op: write its folder (see vector_add/) and add it to
// AllOps() in registry.cc (docs/ARCHITECTURE.md, "Adding an op", lists the
// other files it touches).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "kbench/v1/kbench.pb.h"
#include "proto/ops/op.h"

namespace kbench::proto::ops {

const std::vector<const Op*>& AllOps();
// The op named `name` ("attention"), or nullptr.
const Op* FindOp(std::string_view name);
// The op of the request's problem, or nullptr when it names none.
const Op* OpOf(const v1::RunRequest& request);
// The request's problem as its op describes it (Op::DescribeProblem),
// e.g. "n=1048576"; empty when the request names no op.
std::string DescribeProblemOf(const v1::RunRequest& request);

// What `backend` offers of every op, as ServerInfo lists it: the variants it
// runs, the dtypes any of them runs, and (attention) the head dims.
std::vector<v1::OpInfo> OffersOf(std::string_view backend);

}  // namespace kbench::proto::ops
