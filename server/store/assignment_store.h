// Assignments and their submissions (kbench/v1/assignment.proto), kept in
// the results store's database (migration 8), SQLite or PostgreSQL, over a
// connection of its own. An assignment is stored whole (a serialized
// kbench.v1.Assignment); a submission without its kernel's source, which is
// kept once by its SHA-256 in kernel_sources beside the runs' kernels.
//
// This store checks nothing of what an assignment says (the service does);
// it keeps names unique and counts submissions against their hourly limit
// in the same transaction that records one, so two submissions at once
// cannot both take the last place. Every method may be called from any
// thread; calls are serialized inside, and each blocks on the database.
// Database failures are INTERNAL or UNAVAILABLE with its message.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "kbench/v1/assignment.pb.h"
#include "server/store/sql_database.h"

namespace kbench::server::store {

inline constexpr int64_t kSubmissionWindowMs = 60 * 60 * 1000;

class AssignmentStore {
 public:
  // Does not migrate; OpenAssignmentStore does.
  explicit AssignmentStore(std::unique_ptr<SqlDatabase> database);

  // Stores `assignment` under its name. Without `replace`: ALREADY_EXISTS
  // when the name is taken. With it: NOT_FOUND when it is not.
  absl::Status Save(const v1::Assignment& assignment, bool replace);

  // NOT_FOUND naming it when there is no such assignment.
  absl::StatusOr<v1::Assignment> Get(const std::string& name);

  // The assignments of `cohort` (every one when empty), by name.
  absl::StatusOr<std::vector<v1::Assignment>> List(const std::string& cohort);

  // Records `submission` (its id, assignment, user, time and kernel; the
  // runs it lists are not stored) unless its user already made
  // `per_hour` submissions to the assignment in the hour before its time
  // (re-runs, Submission.rerun_of, are not counted; a re-run is always
  // recorded). Returns nullopt when it was recorded, else the time (ms
  // since the Unix epoch) at which the oldest of those leaves the hour.
  absl::StatusOr<std::optional<int64_t>> AddSubmission(const v1::Submission& submission,
                                                       uint32_t per_hour);

  // One submission, its kernel's source included; NOT_FOUND naming it.
  absl::StatusOr<v1::Submission> GetSubmission(const std::string& submission_id);

  // The submissions to `assignment` of `user` (everyone's when empty),
  // newest first, without their kernels' sources.
  absl::StatusOr<std::vector<v1::Submission>> ListSubmissions(const std::string& assignment,
                                                              const std::string& user);

 private:
  std::mutex mu_;
  const std::unique_ptr<SqlDatabase> database_;
};

// Opens and migrates the store that `spec` names (as OpenStore reads it).
absl::StatusOr<std::unique_ptr<AssignmentStore>> OpenAssignmentStore(const std::string& spec);

}  // namespace kbench::server::store
