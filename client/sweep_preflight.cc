#include "client/sweep_preflight.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "client/sweep_summary.h"
#include "kernels/dtype.h"
#include "proto/ops/dtypes.h"
#include "proto/ops/registry.h"

namespace kbench::client {
namespace {

bool Has(const google::protobuf::RepeatedField<int>& dtypes, v1::DType dtype) {
  return std::find(dtypes.begin(), dtypes.end(), int(dtype)) != dtypes.end();
}

std::string DTypeNames(const google::protobuf::RepeatedField<int>& dtypes) {
  std::vector<std::string> names;
  for (int d : dtypes) names.emplace_back(kernels::DTypeName(proto::ops::FromProto(v1::DType(d))));
  return absl::StrJoin(names, ", ");
}

// `info`'s description of a variant as the op's checks take it: what the
// server's backend runs of it, under the id the op knows it by.
proto::ops::VariantSpec SpecOf(const proto::ops::Op& op, const v1::ServerInfo& info,
                               const v1::VariantInfo& v) {
  proto::ops::VariantSupport support{
      info.backend(), {}, {v.head_dims().begin(), v.head_dims().end()}};
  for (int d : v.dtypes()) support.dtypes.push_back(proto::ops::FromProto(v1::DType(d)));
  const proto::ops::VariantSpec* known = op.FindVariant(v.name());
  return {v.name(), v.summary(), {std::move(support)}, known != nullptr ? known->id : -1};
}

// Why `point` cannot run on the server of `info`; "" when it can.
std::string WhyNot(const v1::ServerInfo& info, const v1::RunRequest& point) {
  const proto::ops::Op* op = proto::ops::OpOf(point);
  if (op == nullptr) return "no op";
  const std::string name(op->name());
  const auto offered = std::find_if(info.ops().begin(), info.ops().end(),
                                    [&](const v1::OpInfo& o) { return o.op() == name; });
  if (offered == info.ops().end())
    return absl::StrCat("this ", info.backend(), " server does not offer ", name);
  const v1::DType dtype = proto::ops::ToProto(proto::ops::FromProto(point.dtype()));
  const std::string dtype_name(kernels::DTypeName(proto::ops::FromProto(dtype)));
  std::vector<proto::ops::VariantSpec> specs;
  if (point.variants().empty()) {  // the server runs those that take the dtype
    for (const v1::VariantInfo& v : offered->variant_details())
      if (Has(v.dtypes(), dtype)) specs.push_back(SpecOf(*op, info, v));
    if (specs.empty())
      return absl::StrCat("no ", name, " variant of this ", info.backend(), " server runs ",
                          dtype_name, " (its dtypes: ", DTypeNames(offered->dtypes()), ")");
  }
  for (const std::string& variant : point.variants()) {
    const auto v =
        std::find_if(offered->variant_details().begin(), offered->variant_details().end(),
                     [&](const v1::VariantInfo& d) { return d.name() == variant; });
    if (v == offered->variant_details().end())
      return absl::StrCat("variant '", variant, "' is not one of this server's ", name,
                          " variants (", absl::StrJoin(offered->variants(), ", "), ")");
    if (!Has(v->dtypes(), dtype))
      return absl::StrCat("variant '", variant, "' does not run ", dtype_name, " on this ",
                          info.backend(), " server (it runs ", DTypeNames(v->dtypes()), ")");
    specs.push_back(SpecOf(*op, info, *v));
  }
  // The op's own checks of a problem against its variants (e.g. a head_dim
  // a variant does not run), as the server makes them.
  std::vector<const proto::ops::VariantSpec*> chosen;
  for (const proto::ops::VariantSpec& spec : specs) chosen.push_back(&spec);
  const absl::Status fits = op->CheckVariants(point, chosen, info.backend(), info.limits());
  return fits.ok() ? "" : std::string(fits.message());
}

}  // namespace

absl::Status PreflightSweep(const v1::ServerInfo& info, const std::vector<v1::RunRequest>& points) {
  std::vector<std::string> lines;
  size_t impossible = 0;
  for (const v1::RunRequest& point : points) {
    const std::string why = WhyNot(info, point);
    if (why.empty()) continue;
    if (++impossible <= kMaxListedPoints)
      lines.push_back(absl::StrCat("  ", DescribePoint(point), ": ", why));
  }
  if (impossible == 0) return absl::OkStatus();
  if (impossible > kMaxListedPoints)
    lines.push_back(absl::StrCat("  ... and ", impossible - kMaxListedPoints, " more"));
  return absl::InvalidArgumentError(absl::StrCat(
      impossible, " of the sweep's ", points.size(),
      " points cannot run on this server (nothing ran; `kbench info` shows what it offers):\n",
      absl::StrJoin(lines, "\n")));
}

}  // namespace kbench::client
