// The server API's room memberships (issue 43, docs/plans/room-state.md;
// docs/protocol.md, "Server API"): who is a member of which room, kept in
// the state store (src/state) across connections and restarts, apart from
// subscriptions.
//
//   POST /api/members_add     {"room","user","invited"?}  -> {"changed"}
//   POST /api/members_remove  {"room","user"}             -> {"changed"}
//   POST /api/members         {"room"}                    -> {"users":[...]}
//   POST /api/user_rooms      {"user"}                    -> {"rooms":[{...}]}
//
// Same key check and error body as the rest of /api/*. A change is
// answered once its batch is committed (state::Writer), so a client told
// "changed" finds it after a crash of heraldd; reads run on the shard (an
// LMDB read never waits for the writer). Without state.dir every call is
// answered 501 naming the setting.
#pragma once

#include "gateway/http/router.hpp"
#include "gateway/server_state.hpp"
#include "state/membership_store.hpp"
#include "state/writer.hpp"

namespace herald::gateway::api {

// `store` and `writer` are both null (no state.dir) or both set, and
// outlive the router's handlers.
void register_membership_api(http::HttpRouter& router, ServerState& state,
                             const state::MembershipStore* store, state::Writer* writer);

}  // namespace herald::gateway::api
