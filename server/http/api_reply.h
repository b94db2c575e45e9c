// How the dashboard's /api/ endpoints reply: a table (table.h) as JSON or,
// with format=csv, as a CSV download; an error as JSON naming its cause
// (api_params.h ErrorJson) with the HTTP status of its code.
#pragma once

#include <functional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "httplib.h"
#include "nlohmann/json.hpp"
#include "server/http/api_params.h"
#include "server/http/table.h"
#include "server/identity/principal.h"

namespace kbench::server::http {

// Who makes a request; UNAUTHENTICATED when it carries no valid token.
using CallerOf = std::function<absl::StatusOr<identity::Principal>(const httplib::Request&)>;

// A table reply: the table, the CSV file's name, and for JSON any fields
// beside the table's (e.g. next_page_token).
struct TableReply {
  Table table;
  std::string csv_name;
  nlohmann::json extra = nlohmann::json::object();
};

using TableEndpoint =
    std::function<absl::StatusOr<TableReply>(const ApiParams&, const identity::Principal&)>;

// Text that is not UTF-8 is written with U+FFFD in its place: a cell that
// cannot be encoded never turns the whole reply into an error.
void ReplyJson(httplib::Response& response, int status, const nlohmann::json& body);
void ReplyError(httplib::Response& response, const absl::Status& error);

// GET `path`: the caller, then `endpoint`'s table as JSON or CSV.
void ServeTable(httplib::Server& server, const std::string& path, const CallerOf& caller,
                TableEndpoint endpoint);

}  // namespace kbench::server::http
