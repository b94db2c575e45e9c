// The dashboard's assignment endpoints (docs/API.md), answered from the
// AssignmentBook (server/front/assignment_book.h) for the caller, with its
// rules of who sees what:
//   /api/assignments                         the assignments the caller sees
//   /api/assignments/leaderboard?assignment=  ranks, scores, attempts
//   /api/assignments/roster[?cohort=]        each learner's standing per
//                                            assignment; its CSV is the
//                                            gradebook (instructors, admins)
//   /api/assignments/submissions?assignment=[&learner=]
//   /api/assignments/submission?id=          one report (JSON only), with
//                                            its source and the learner's
//                                            previous submission's, to diff
// Tables take format=json or format=csv as every table endpoint does.
// Register before AddApiRoutes, whose last route answers any other /api/
// path with 404.
#pragma once

#include "httplib.h"
#include "server/front/assignment_book.h"
#include "server/http/api_reply.h"

namespace kbench::server::http {

void AddAssignmentRoutes(httplib::Server& server, AssignmentBook& book, const CallerOf& caller);

}  // namespace kbench::server::http
