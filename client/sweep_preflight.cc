#include "sweep_preflight.h"

#include <algorithm>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "kernels/dtype.h"
#include "proto/ops/dtypes.h"
#include "proto/ops/registry.h"
#include "sweep_summary.h"

namespace kbench::client {
namespace {

bool Has(const google::protobuf::RepeatedField<int>& dtypes, v1::DType dtype) {
  return std::find(dtypes.begin(), dtypes.end(), int(dtype)) != dtypes.end();
}

bool TakesHeadDim(const google::protobuf::RepeatedField<uint32_t>& head_dims, uint32_t head_dim) {
  return head_dims.empty() || std::find(head_dims.begin(), head_dims.end(), head_dim) !=
                                  head_dims.end();
}

std::string DTypeNames(const google::protobuf::RepeatedField<int>& dtypes) {
  std::vector<std::string> names;
  for (int d : dtypes) names.emplace_back(kernels::DTypeName(ops::FromProto(v1::DType(d))));
  return absl::StrJoin(names, ", ");
}

// Why `point` cannot run on the server of `info`; "" when it can.
std::string WhyNot(const v1::ServerInfo& info, const v1::RunRequest& point) {
  const ops::Op* op = ops::OpOf(point);
  if (op == nullptr) return "no op";
  const std::string name(op->name());
  const auto offered = std::find_if(info.ops().begin(), info.ops().end(),
                                    [&](const v1::OpInfo& o) { return o.op() == name; });
  if (offered == info.ops().end())
    return absl::StrCat("this ", info.backend(), " server does not offer ", name);
  const v1::DType dtype = ops::ToProto(ops::FromProto(point.dtype()));
  const std::string dtype_name(kernels::DTypeName(ops::FromProto(dtype)));
  // 0: the server's default, which it checks itself.
  const bool has_head_dim = point.has_attention() && point.attention().head_dim() != 0;
  const uint32_t head_dim = has_head_dim ? point.attention().head_dim() : 0;
  if (point.variants().empty()) {
    for (const v1::VariantInfo& v : offered->variant_details())
      if (Has(v.dtypes(), dtype) && (!has_head_dim || TakesHeadDim(v.head_dims(), head_dim)))
        return "";
    return absl::StrCat("no ", name, " variant of this ", info.backend(), " server runs ",
                        dtype_name, has_head_dim ? absl::StrCat(" at head_dim ", head_dim) : "",
                        " (its dtypes: ", DTypeNames(offered->dtypes()), ")");
  }
  for (const std::string& variant : point.variants()) {
    const auto v = std::find_if(offered->variant_details().begin(),
                                offered->variant_details().end(),
                                [&](const v1::VariantInfo& d) { return d.name() == variant; });
    if (v == offered->variant_details().end())
      return absl::StrCat("variant '", variant, "' is not one of this server's ", name,
                          " variants (", absl::StrJoin(offered->variants(), ", "), ")");
    if (!Has(v->dtypes(), dtype))
      return absl::StrCat("variant '", variant, "' does not run ", dtype_name, " on this ",
                          info.backend(), " server (it runs ", DTypeNames(v->dtypes()), ")");
    if (has_head_dim && !TakesHeadDim(v->head_dims(), head_dim))
      return absl::StrCat("variant '", variant, "' does not run head_dim ", head_dim);
  }
  return "";
}

}  // namespace

absl::Status PreflightSweep(const v1::ServerInfo& info, const std::vector<v1::RunRequest>& points) {
  std::vector<std::string> lines;
  size_t impossible = 0;
  for (const v1::RunRequest& point : points) {
    const std::string why = WhyNot(info, point);
    if (why.empty()) continue;
    if (++impossible <= kMaxListedPoints) lines.push_back(absl::StrCat("  ", DescribePoint(point), ": ", why));
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
