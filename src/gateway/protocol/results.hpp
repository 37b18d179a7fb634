// The JSON bodies of broker results, shared by the WebSocket replies
// ({"id":N,"result":<body>}) and the HTTP API ({"result":<body>}), so both
// surfaces answer the same question with the same bytes.
#pragma once

#include <cstddef>
#include <string>

#include "gateway/protocol/requests.hpp"

namespace herald::gateway::protocol {

// {"epoch":"...","offset":N,"recovered":B,"publications":[...]}
// `data_json`: the subscribe hook's data for the client, or empty.
[[nodiscard]] std::string subscribe_result(const SubscribeResult& r,
                                           std::string_view data_json = {});
// {"epoch":"...","offset":N,"publications":[...]}
[[nodiscard]] std::string history_result(const HistoryResult& r);
// `{"client":C,"user":U,"version":V`: the identity that opens a connect
// result and an SSE stream's "connected" event; the caller adds its own
// fields and the closing brace.
void append_connection_identity(std::string& out, std::string_view client, std::string_view user);
// {"offset":N,"epoch":"..."}, or {} for a publication outside the stream
[[nodiscard]] std::string publish_result(const PublishResult& r);
// {"clients":[info, ...]}
[[nodiscard]] std::string presence_result(const PresenceResult& r);
// How many distinct users the entries are of (a user may hold several
// connections).
[[nodiscard]] std::size_t distinct_users(const PresenceResult& r);
// {"clients":N,"users":M} (M: distinct_users)
[[nodiscard]] std::string presence_stats_result(const PresenceResult& r);

}  // namespace herald::gateway::protocol
