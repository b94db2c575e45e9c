// Scoring an assignment's submissions from their stored runs, and ranking
// the learners (the rules are kbench/v1/assignment.proto's): pure functions
// of the assignment, the submissions and the run records, so the service
// and the tests share them.
#pragma once

#include <string>
#include <vector>

#include "kbench/v1/assignment.pb.h"
#include "kbench/v1/history.pb.h"

namespace kbench::server {

// Whether `run` was made for `submission` on problem `index` of
// `assignment`: the submission's id and runner (its owner, or for a
// re-run the instructor who made it), the problem and dtype, the
// assignment's baselines as its variants, and exactly the submission's
// kernel but for its source (the caller checks the source by its hash,
// RunStore::KernelHashes).
bool RunOfProblem(const v1::Assignment& assignment, int index, const v1::Submission& submission,
                  const v1::RunRecord& run);

// The report of `submission`: `problem_runs[i]` is problem i's run (the
// first that RunOfProblem accepted and whose kernel hash matched), or
// nullptr when none was made. Counts when every problem's run ended OK
// with every variant verified; its score is then the geometric mean of the
// kernel's median times, its interval that of the medians' confidence
// bounds (the median where a run reported none).
v1::SubmissionReport ReportOf(const v1::Assignment& assignment, const v1::Submission& submission,
                              const std::vector<const v1::RunRecord*>& problem_runs);

// The leaderboard of `assignment` from every report of its submissions
// (any order; re-runs are left out): each learner's best counting report (the lowest score; the
// earlier of equal ones), best first, with competition ranks (1, 2, 2, 4)
// where a learner whose score interval overlaps that of the first learner
// of the rank above shares that rank. Names are all present: the caller
// hides them.
v1::Leaderboard RankLearners(const v1::Assignment& assignment,
                             const std::vector<v1::SubmissionReport>& reports);

}  // namespace kbench::server
