// ListRunsRequest to the WHERE clause, parameters and page size of one page
// of SqlRunStore::List, with the request checked on the way: a bad field is
// INVALID_ARGUMENT naming it. Page tokens are the web-safe base64 of the
// last listed run's key (accepted_unix_ms, run_id): the next page resumes
// strictly after it in newest-first order, so runs added meanwhile (newer
// ones) never shift it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "kbench/v1/history.pb.h"
#include "server/store/sql_database.h"

namespace kbench::server::store {

inline constexpr uint32_t kDefaultPageSize = 50;
inline constexpr uint32_t kMaxPageSize = 500;

struct ListQuery {
  // "WHERE ..." with `?` placeholders, or empty; binds `params` in order.
  std::string where;
  std::vector<SqlValue> params;
  uint32_t page_size = kDefaultPageSize;
};

absl::StatusOr<ListQuery> BuildListQuery(const v1::ListRunsRequest& request);

// The token of the page that follows the run with this key.
std::string EncodePageToken(int64_t accepted_unix_ms, const std::string& run_id);

}  // namespace kbench::server::store
