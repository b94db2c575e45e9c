// The dashboard's JSON and CSV endpoints under /api/, as docs/API.md
// documents them: labels, learners, an assignment's tables, a learner's
// history, a page of runs, and the live state. Every table endpoint takes
// format=json (the default) or format=csv; a bad or unknown parameter is a
// 400 whose JSON error names it; a store error is a 500 or 503 with the
// store's message.
//
// Each endpoint answers for its caller (CallerOf): a table of runs holds
// only the runs the caller may read (server/auth/run_access.h: a learner
// their own, an instructor their cohort's, an admin all); asking for
// another's is 403, no valid token 401. The live queue shows each caller
// the runs they may read: a learner their own, an instructor their
// cohort's.
//
// Handlers read the store on cpp-httplib's threads, several at once (the
// store serializes them); the store and the live provider must outlive the
// server.
#pragma once

#include <functional>

#include "absl/status/statusor.h"
#include "httplib.h"
#include "server/http/api_reply.h"
#include "server/identity/principal.h"
#include "server/live/live_state.h"
#include "server/store/run_store.h"

namespace kbench::server::http {

void AddApiRoutes(httplib::Server& server, store::RunStore& store, LiveProvider live,
                  CallerOf caller);

}  // namespace kbench::server::http
