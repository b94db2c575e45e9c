#include "server/http/api_reply.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace kbench::server::http {
namespace {

// A file name safe in a Content-Disposition header: letters, digits, '-',
// '_' and '.' kept, anything else '_'.
std::string SafeFileName(std::string name) {
  for (char& c : name) {
    const bool safe = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      c == '-' || c == '_' || c == '.';
    if (!safe) c = '_';
  }
  return name;
}

}  // namespace

void ReplyJson(httplib::Response& response, int status, const nlohmann::json& body) {
  response.status = status;
  response.set_header("Cache-Control", "no-store");
  response.set_content(body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace),
                       "application/json");
}

void ReplyError(httplib::Response& response, const absl::Status& error) {
  ReplyJson(response, HttpStatusOf(error), ErrorJson(error));
}

void ServeTable(httplib::Server& server, const std::string& path, const CallerOf& caller,
                TableEndpoint endpoint) {
  server.Get(path, [caller, endpoint = std::move(endpoint)](const httplib::Request& request,
                                                            httplib::Response& response) {
    absl::StatusOr<identity::Principal> who = caller(request);
    if (!who.ok()) return ReplyError(response, who.status());
    const ApiParams params(request);
    absl::StatusOr<bool> csv = params.WantsCsv();
    if (!csv.ok()) return ReplyError(response, csv.status());
    absl::StatusOr<TableReply> reply = endpoint(params, *who);
    if (!reply.ok()) return ReplyError(response, reply.status());
    if (*csv) {
      response.set_header(
          "Content-Disposition",
          absl::StrCat("attachment; filename=\"", SafeFileName(reply->csv_name), ".csv\""));
      response.set_header("Cache-Control", "no-store");
      response.set_content(ToCsv(reply->table), "text/csv; charset=utf-8");
      return;
    }
    nlohmann::json body = ToJson(reply->table);
    body.update(reply->extra);
    ReplyJson(response, 200, body);
  });
}

}  // namespace kbench::server::http
