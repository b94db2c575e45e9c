#include "server/store/list_query.h"

#include <utility>

#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "kernels/common/status_macros.h"

namespace kbench::server::store {
namespace {

struct PageKey {
  int64_t accepted_unix_ms;
  std::string run_id;
};

absl::StatusOr<PageKey> DecodePageToken(const std::string& token) {
  const absl::Status bad = absl::InvalidArgumentError(
      "page_token: not a token of this server (pass next_page_token as it came)");
  std::string key;
  if (!absl::WebSafeBase64Unescape(token, &key)) return bad;
  std::pair<std::string, std::string> parts = absl::StrSplit(key, absl::MaxSplits('/', 1));
  PageKey decoded;
  if (!absl::SimpleAtoi(parts.first, &decoded.accepted_unix_ms) || parts.second.empty()) {
    return bad;
  }
  decoded.run_id = std::move(parts.second);
  return decoded;
}

}  // namespace

std::string EncodePageToken(int64_t accepted_unix_ms, const std::string& run_id) {
  return absl::WebSafeBase64Escape(absl::StrCat(accepted_unix_ms, "/", run_id));
}

absl::StatusOr<ListQuery> BuildListQuery(const v1::ListRunsRequest& request) {
  ListQuery query;
  if (request.page_size() > kMaxPageSize) {
    return absl::InvalidArgumentError(
        absl::StrCat("page_size: ", request.page_size(), " is over the limit of ", kMaxPageSize));
  }
  if (request.page_size() != 0) query.page_size = request.page_size();
  if (!v1::RunStatus_IsValid(request.status())) {
    return absl::InvalidArgumentError(
        absl::StrCat("status: ", request.status(), " is not a RunStatus"));
  }
  if (request.since_unix_ms() < 0) {
    return absl::InvalidArgumentError("since_unix_ms: must not be negative");
  }
  if (request.until_unix_ms() < 0) {
    return absl::InvalidArgumentError("until_unix_ms: must not be negative");
  }
  if (request.until_unix_ms() != 0 && request.until_unix_ms() <= request.since_unix_ms()) {
    return absl::InvalidArgumentError(absl::StrCat("until_unix_ms: ", request.until_unix_ms(),
                                                   " is not after since_unix_ms ",
                                                   request.since_unix_ms()));
  }

  std::vector<std::string> conditions;
  const auto add = [&](std::string condition, std::vector<SqlValue> params) {
    conditions.push_back(std::move(condition));
    for (SqlValue& param : params) query.params.push_back(std::move(param));
  };
  if (!request.label().empty()) add("label = ?", {request.label()});
  if (!request.op().empty()) add("op = ?", {request.op()});
  if (!request.user().empty()) add("user_name = ?", {request.user()});
  if (!request.cohort().empty()) {
    add("user_name IN (SELECT name FROM users WHERE cohort = ?)", {request.cohort()});
  }
  if (!request.submission_id().empty()) add("submission_id = ?", {request.submission_id()});
  if (request.status() != v1::RUN_STATUS_UNSPECIFIED) {
    add("status = ?", {int64_t{request.status()}});
  }
  if (request.since_unix_ms() != 0) {
    add("accepted_unix_ms >= ?", {request.since_unix_ms()});
  }
  if (request.until_unix_ms() != 0) {
    add("accepted_unix_ms < ?", {request.until_unix_ms()});
  }
  if (!request.page_token().empty()) {
    KBENCH_ASSIGN_OR_RETURN(PageKey key, DecodePageToken(request.page_token()));
    add("(accepted_unix_ms < ? OR (accepted_unix_ms = ? AND run_id < ?))",
        {key.accepted_unix_ms, key.accepted_unix_ms, key.run_id});
  }
  if (!conditions.empty()) {
    query.where = absl::StrCat("WHERE ", absl::StrJoin(conditions, " AND "));
  }
  return query;
}

}  // namespace kbench::server::store
