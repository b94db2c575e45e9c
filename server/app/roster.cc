#include "server/app/roster.h"

#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "proto/text/csv_field.h"

namespace kbench::server {

absl::StatusOr<std::vector<store::NewUser>> ParseRoster(std::istream& roster,
                                                        const std::string& cohort) {
  std::vector<store::NewUser> users;
  std::string line;
  for (int number = 1; std::getline(roster, line); ++number) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (absl::StripAsciiWhitespace(line).empty()) continue;
    std::vector<std::string> fields = absl::StrSplit(line, ',');
    for (std::string& field : fields) field = std::string(absl::StripAsciiWhitespace(field));
    if (number == 1 && fields[0] == "name") continue;
    const std::string where = absl::StrCat("roster line ", number, ": ");
    if (fields.size() > 2) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, fields.size(), " fields; a line is name[,email]"));
    }
    if (absl::Status name = store::CheckName("name", fields[0]); !name.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(where, name.message()));
    }
    const std::string email = fields.size() == 2 ? fields[1] : "";
    if (email.size() > store::kMaxEmailLength) {
      return absl::InvalidArgumentError(absl::StrCat(where, "email: ", email.size(),
                                                     " characters is over the limit of ",
                                                     store::kMaxEmailLength));
    }
    if (users.size() == store::kMaxRosterUsers) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, "a roster holds at most ", store::kMaxRosterUsers, " learners"));
    }
    users.push_back(store::NewUser{fields[0], identity::Role::kLearner, cohort, email});
  }
  return users;
}

std::string RosterTokensCsv(const std::vector<store::NewUser>& learners,
                            const std::vector<std::string>& tokens) {
  std::string csv = "name,email,token\r\n";
  for (size_t i = 0; i < learners.size() && i < tokens.size(); ++i) {
    absl::StrAppend(&csv, proto::text::CsvField(learners[i].name), ",",
                    proto::text::CsvField(learners[i].email), ",", proto::text::CsvField(tokens[i]),
                    "\r\n");
  }
  return csv;
}

}  // namespace kbench::server
