// Carries out the assignment commands (assignment_command_line.h) against
// the server's Assignments service: the calls, what goes to stdout (a
// table; --json the message; --csv for leaderboards and the roster), the
// errors on stderr, and the exit code. `kbench submit` also runs the
// submission's runs through Run, one per problem, with progress on stderr.
#pragma once

#include <string>
#include <vector>

#include "client/assignment_command_line.h"
#include "client/command_line.h"
#include "client/exit_codes.h"
#include "client/interrupt_watcher.h"
#include "client/server_calls.h"
#include "kbench/v1/assignment.pb.h"

namespace kbench::client {

ExitCode RunAssignmentCommand(const GlobalOptions& options, const CallOptions& call,
                              InterruptWatcher& watcher, const AssignmentCommand& command);

// The assignment: name, title, cohort, times, limits, baselines, and its
// problems one per line.
std::string FormatAssignment(const v1::Assignment& assignment);

// One line per problem (its time, speedups, verified or why not), then the
// score with its interval and speedups, or why the submission does not
// count.
std::string FormatSubmissionReport(const v1::SubmissionReport& report);

// The leaderboard as a table (rank, "=" for a tie, learner or "(hidden)",
// score and interval, speedup over each baseline, attempts, last), or as
// CSV with the columns rank, tied, user, you, score_ms, score_ci_low_ms,
// score_ci_high_ms, speedup_<baseline>..., attempts, last_attempt_unix_ms,
// late, devices.
std::string FormatLeaderboard(const v1::Leaderboard& board);
std::string FormatLeaderboardCsv(const v1::Leaderboard& board, bool header);

// A re-run against the leaderboard it started from: per learner, the rank
// and score before (and the GPU), the re-run's score (and GPU) and rank
// among the re-runs, and the ratio of the scores; a re-run that does not
// count says why. `reruns[i]` is the report of plan.reruns(i).
std::string FormatRerun(const v1::RerunPlan& plan, const std::vector<v1::SubmissionReport>& reruns);

// The roster: one row per learner, one column per assignment ("-" not
// started, "failing", or "#rank score ms"). The gradebook is the same as
// CSV: user, then each assignment's score in ms, or "not started" or
// "failing".
std::string FormatRoster(const v1::Roster& roster);
std::string FormatGradebookCsv(const v1::Roster& roster, bool header);

}  // namespace kbench::client
