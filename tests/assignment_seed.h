// A course's assignment for the dashboard tests, written through the
// stores' public calls as the server would write it: assignment "lab3"
// (vector add n=1024 and n=4096, naive beside each submission) of
// `cohort` ("" by default: everyone's, on a server without identities) and
// three submissions whose runs ran on "Seed GPU", by `first` (eve by
// default) and `second` (finn):
//   sub-00000000000a first   my_add.cu 0.5 ms on both problems   counts
//   sub-00000000000b first   my_add.cu 0.4 ms (a changed line)   counts, best
//   sub-00000000000c second  wrong.cu, problem 1 fails verification
// naive takes 2 ms; each kernel compiled for sm_90a with 16 registers and
// one warning. Submissions are a minute apart from kSeedStartUnixMs.
#pragma once

#include <string>

#include "absl/status/status.h"
#include "server/store/assignment_store.h"
#include "server/store/run_store.h"

namespace kbench::testing {

absl::Status SeedAssignment(server::store::RunStore& runs,
                            server::store::AssignmentStore& assignments,
                            const std::string& cohort = "", const std::string& first = "eve",
                            const std::string& second = "finn");

}  // namespace kbench::testing
