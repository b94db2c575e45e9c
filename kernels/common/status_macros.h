// The one status idiom of kbench: propagate an absl::Status or unwrap an
// absl::StatusOr, returning its error from the enclosing function.
//
//   KBENCH_RETURN_IF_ERROR(stream.Synchronize());
//   KBENCH_ASSIGN_OR_RETURN(DeviceBuffer buffer, DeviceBuffer::Allocate(n));
//
// Prefixed because protobuf 3.21 defines an unprefixed RETURN_IF_ERROR.
#pragma once

#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define KBENCH_RETURN_IF_ERROR(expr)                                                         \
  do {                                                                                       \
    if (::absl::Status kbench_status_ = (expr); !kbench_status_.ok()) return kbench_status_; \
  } while (0)

#define KBENCH_STATUS_CONCAT_INNER_(a, b) a##b
#define KBENCH_STATUS_CONCAT_(a, b) KBENCH_STATUS_CONCAT_INNER_(a, b)

#define KBENCH_ASSIGN_OR_RETURN(lhs, expr) \
  KBENCH_ASSIGN_OR_RETURN_IMPL_(KBENCH_STATUS_CONCAT_(kbench_statusor_, __LINE__), lhs, expr)

#define KBENCH_ASSIGN_OR_RETURN_IMPL_(statusor, lhs, expr) \
  auto statusor = (expr);                                  \
  if (!statusor.ok()) return std::move(statusor).status(); \
  lhs = *std::move(statusor)
