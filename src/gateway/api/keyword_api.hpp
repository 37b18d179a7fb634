// The keyword dictionary API (docs/protocol.md, "Keyword dictionaries"):
//
//   GET  /api/keywords/{dict}          every entry and the version
//   POST /api/keywords/{dict}/add      {"keywords": [...]}  -> version, changed
//   POST /api/keywords/{dict}/remove   {"keywords": [...]}  -> version, changed
//   POST /api/keywords/{dict}/flush    (any body)           -> version, changed
//   POST /api/keywords/{dict}/match    {"text": "..."}      -> matches, masked text, verdict
//
// Same key check and error body as the rest of /api/*. A store answers on
// its own thread; the reply is posted back to the connection's shard.
// Errors: 400 for a bad request (what and where), 503 when Redis is
// unreachable (retry later), 500 otherwise.
#pragma once

#include "core/metrics/registry.hpp"
#include "gateway/http/router.hpp"
#include "gateway/server_state.hpp"
#include "match/store/store.hpp"

namespace herald::gateway::api {

void register_keyword_api(http::HttpRouter& router, ServerState& state, match::store::Store& store);

// The store's per-process statistics as metrics (herald_keyword_*).
void register_keyword_metrics(metrics::Registry& registry, const match::store::Store& store);

}  // namespace herald::gateway::api
