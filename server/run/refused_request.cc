#include "server/run/refused_request.h"

#include <string>
#include <vector>

#include "proto/text/utf8.h"
#include "server/run/validation.h"

namespace kbench::server {

KeptRequest KeepRefused(const v1::RunRequest& request, const v1::Limits& limits) {
  KeptRequest kept;
  kept.request = request;
  kept.request.DiscardUnknownFields();
  kept.sanitized = kept.request.ByteSizeLong() != request.ByteSizeLong();

  const std::string label =
      proto::text::ValidUtf8Prefix(request.label(), limits.max_label_length());
  if (label != request.label()) {
    kept.request.set_label(label);
    kept.sanitized = true;
  }
  // A submission id is short; anything else is not one and is dropped.
  if (!CheckSubmissionId("submission_id", request.submission_id()).ok() &&
      !request.submission_id().empty()) {
    kept.request.clear_submission_id();
    kept.sanitized = true;
  }
  std::vector<std::string> variants;
  for (const std::string& name : request.variants()) {
    if (variants.size() == limits.max_variants()) {
      kept.sanitized = true;
      break;
    }
    variants.push_back(proto::text::ValidUtf8Prefix(name, kMaxKeptVariantBytes));
    if (variants.back() != name) kept.sanitized = true;
  }
  kept.request.clear_variants();
  for (std::string& name : variants) kept.request.add_variants(std::move(name));
  return kept;
}

}  // namespace kbench::server
