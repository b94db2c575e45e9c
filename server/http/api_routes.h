// The dashboard's JSON and CSV endpoints under /api/, as docs/API.md
// documents them: labels, learners, an assignment's tables, a learner's
// history, a page of runs, and the live state. Every table endpoint takes
// format=json (the default) or format=csv; a bad or unknown parameter is a
// 400 whose JSON error names it; a store error is a 500 or 503 with the
// store's message.
//
// Handlers read the store on cpp-httplib's threads, several at once (the
// store serializes them); the store and the live provider must outlive the
// server.
#pragma once

#include "httplib.h"
#include "server/live/live_state.h"
#include "server/store/run_store.h"

namespace kbench::server::http {

void AddApiRoutes(httplib::Server& server, store::RunStore& store, LiveProvider live);

}  // namespace kbench::server::http
