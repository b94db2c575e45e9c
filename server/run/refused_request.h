// What the front keeps of a request it refused, for the run history and
// the other observers: enough to show who asked for what and why it was
// refused, never the whole of what a client sent. A refused request may
// hold anything a client can send (a 4 MiB label, bytes that are not
// UTF-8, thousands of variant names, fields this server does not know);
// kept whole, one refusal would cost megabytes of store, and text that is
// not UTF-8 in a record's `string` field would make every page of history
// that includes it fail to parse.
#pragma once

#include <cstddef>

#include "kbench/v1/kbench.pb.h"

namespace kbench::server {

// The most bytes of a variant name kept.
inline constexpr size_t kMaxKeptVariantBytes = 64;

struct KeptRequest {
  v1::RunRequest request;
  // Set when `request` is not all that was sent.
  bool sanitized = false;
};

// `request` with its label cut to Limits.max_label_length bytes and each
// variant name to kMaxKeptVariantBytes, both made valid UTF-8
// (proto::text::ValidUtf8Prefix: a byte that is not becomes U+FFFD), at most
// Limits.max_variants names, a submission_id that is not one dropped, and
// the fields this server does not know dropped. The problem, dtype, timing, seed and fault are
// numbers, kept as they are. An admitted request is kept unchanged.
KeptRequest KeepRefused(const v1::RunRequest& request, const v1::Limits& limits);

}  // namespace kbench::server
