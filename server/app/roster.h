// A roster CSV, one learner a line: `name[,email]`. A first line whose
// name is "name" is a header and is skipped, and so are blank lines;
// spaces around fields are trimmed. At most store::kMaxRosterUsers learners.
// And the CSV `kbench-server admin import-roster` prints of the learners it
// added, with their tokens.
#pragma once

#include <istream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "server/store/identity_store.h"

namespace kbench::server {

// The learners of `roster`, each in `cohort`. INVALID_ARGUMENT naming the
// line and what is wrong with it (a bad name or email, too many fields, too
// many lines).
absl::StatusOr<std::vector<store::NewUser>> ParseRoster(std::istream& roster,
                                                        const std::string& cohort);

// "name,email,token", then a line for each of `learners` with its token
// (tokens[i] is learners[i]'s), lines ending in CRLF, each field written by
// proto::text::CsvField: an email a spreadsheet would run as a formula opens as
// text.
std::string RosterTokensCsv(const std::vector<store::NewUser>& learners,
                            const std::vector<std::string>& tokens);

}  // namespace kbench::server
