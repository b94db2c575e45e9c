#include "proto/ops/registry.h"

#include <algorithm>

#include "proto/ops/attention/attention_op.h"
#include "proto/ops/dtypes.h"
#include "proto/ops/vector_add/vector_add_op.h"

namespace kbench::proto::ops {

const std::vector<const Op*>& AllOps() {
  static const std::vector<const Op*> ops = {&VectorAddOp(), &AttentionOp()};
  return ops;
}

const Op* FindOp(std::string_view name) {
  for (const Op* op : AllOps())
    if (op->name() == name) return op;
  return nullptr;
}

const Op* OpOf(const v1::RunRequest& request) {
  for (const Op* op : AllOps())
    if (op->problem_case() == request.problem_case()) return op;
  return nullptr;
}

std::string DescribeProblemOf(const v1::RunRequest& request) {
  const Op* op = OpOf(request);
  return op == nullptr ? "" : op->DescribeProblem(request);
}

std::vector<v1::OpInfo> OffersOf(std::string_view backend) {
  std::vector<v1::OpInfo> offers;
  for (const Op* op : AllOps()) {
    v1::OpInfo info;
    info.set_op(std::string(op->name()));
    info.set_description(std::string(op->description()));
    std::vector<kernels::DType> dtypes;
    std::vector<uint32_t> head_dims;
    bool any_head_dim = false;
    for (const VariantSpec& variant : op->variants()) {
      const VariantSupport* support = variant.On(backend);
      if (support == nullptr) continue;
      info.add_variants(variant.name);
      v1::VariantInfo* details = info.add_variant_details();
      details->set_name(variant.name);
      details->set_summary(variant.summary);
      for (kernels::DType d : support->dtypes) details->add_dtypes(ToProto(d));
      for (uint32_t h : support->head_dims) details->add_head_dims(h);
      for (kernels::DType d : support->dtypes)
        if (std::find(dtypes.begin(), dtypes.end(), d) == dtypes.end()) dtypes.push_back(d);
      any_head_dim |= support->head_dims.empty();
      for (uint32_t h : support->head_dims)
        if (std::find(head_dims.begin(), head_dims.end(), h) == head_dims.end())
          head_dims.push_back(h);
    }
    if (info.variants().empty()) continue;
    for (const kernels::DTypeInfo& d : kernels::AllDTypes())
      if (std::find(dtypes.begin(), dtypes.end(), d.dtype) != dtypes.end())
        info.add_dtypes(ToProto(d.dtype));
    // The op-level list is what some variant runs: empty once any variant
    // runs any head_dim.
    if (!any_head_dim) {
      std::sort(head_dims.begin(), head_dims.end());
      for (uint32_t h : head_dims) info.add_head_dims(h);
    }
    offers.push_back(std::move(info));
  }
  return offers;
}

}  // namespace kbench::proto::ops
