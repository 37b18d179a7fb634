// The JSON bodies of Centrifugo's results that its client protocol
// (codec/centrifugo_json.hpp) and its server API (api/api_dialect.hpp)
// share: a history, a presence and a presence count are the same objects
// in a reply to an SDK and in an answer to cent.js (centrifugal/protocol
// client.proto and centrifugo's api.proto declare the same fields), so
// both surfaces write them here, as protocol/results.hpp does for Herald's.
//
// Each is made from Herald's canonical JSON (a stored {"pub":..} line, a
// presence entry's info), read back with a parser of the calling thread:
// any shard's thread may call them.
#pragma once

#include <simdjson.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gateway/fanout/message.hpp"
#include "gateway/protocol/requests.hpp"

namespace herald::gateway::codec::centrifugo {

// "publications":[{"data":..,"info":{..},"offset":N}, ...] from stored push
// lines ({"pub":{...}}), appended to `out`.
void append_publications(std::string& out, const std::vector<fanout::MessagePtr>& pubs);
// A canonical publication object ({"room","offset"?,"data","info"?,..}:
// protocol::append_publication) as Centrifugo's Publication: data, info,
// and the offset when it is in the stream.
void append_publication(std::string& out, simdjson::dom::object pub);
// Herald's info object ({"client","user","info"?,"chan_info"?}:
// protocol::encode_client_info) as Centrifugo's ClientInfo: user and
// client always written, the connect hook's info as conn_info.
void append_client_info(std::string& out, simdjson::dom::object info);
// `json` parsed into `out` by the calling thread's parser, which a later
// call reuses: `out` is valid until this thread's next parse_object.
bool parse_object(std::string_view json, simdjson::dom::object& out);

// What a history request's `limit` asks for, in Centrifugo's terms (both
// surfaces): absent or 0 the stream's position only (a limit of 0), -1
// every publication kept (no limit), else at most that many. `limit` is in
// [-1, INT32_MAX], as both readers check.
[[nodiscard]] std::optional<std::uint32_t> history_limit(std::optional<std::int64_t> limit);

// {"publications":[...],"epoch":"..","offset":N}
[[nodiscard]] std::string history_result(const protocol::HistoryResult& r);
// {"presence":{"<client>":{ClientInfo}, ...}}
[[nodiscard]] std::string presence_result(const protocol::PresenceResult& r);
// {"num_clients":N,"num_users":M}
[[nodiscard]] std::string presence_stats_result(const protocol::PresenceResult& r);

}  // namespace herald::gateway::codec::centrifugo
