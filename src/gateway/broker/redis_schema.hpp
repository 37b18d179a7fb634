// How a room lives in Redis, and the scripts that touch it. Every key of a
// room carries the room name as its hash tag, so a room's keys share one
// Redis Cluster slot and one script may touch them all:
//
//   <prefix>{<room>}:m   hash   epoch, top (offset of the newest publication)
//   <prefix>{<room>}:h   list   history, oldest first: "<at_ms> <push frame>"
//                               (offsets consecutive, the last one is top)
//   <prefix>{<room>}:p   hash   presence: client -> "<expires_ms> <userlen> <user><info>"
//                               (entries expire unless their node refreshes them)
//   <prefix>{<room>}:c   channel  live traffic: "p <offset> <epoch> <push frame>"
//                                 (publications) or "e <push frame>" (join/leave,
//                                 and publications outside the stream)
//
// The publish script appends to the history, assigns the offset and
// PUBLISHes in one atomic step (one EVAL, one round trip): every node sees
// offsets in the order Redis assigned them, and a publication is in the
// history before any node can deliver it.
//
// Scripts go out as EVALSHA with their SHA1, computed once (redis/script.hpp):
// Redis then neither receives nor hashes the text (about 1 KiB) per call
// (docs/benchmarks.md measures what it saves on Redis's CPU). A server whose
// script cache is empty (restarted, SCRIPT FLUSH, a new Redis Cluster
// master) answers NOSCRIPT once per script; the client sends that command
// again as EVAL, which loads the script.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gateway/broker/node_stats.hpp"
#include "redis/reply.hpp"
#include "redis/script.hpp"

namespace herald::gateway::broker::redis_schema {

struct RoomKeys {
  std::string meta, history, presence, channel;
};
[[nodiscard]] RoomKeys room_keys(std::string_view prefix, std::string_view room);
// <prefix>{<room>}:i:<key>, a string "<offset> <epoch>" that lives for the
// idempotency window: the position of the room's publication under `key`
// (in the room's slot, so the publish script may read and write it).
[[nodiscard]] std::string idempotency_key(std::string_view prefix, std::string_view room,
                                          std::string_view key);

// Lineage: the meta hash's field `r` holds the replication ID
// (master_replid) of the Redis history the room was last written under.
// Redis replicates asynchronously, so a failover (or a restart, which also
// starts a new history) can lose a room's last publications; the next
// ones would then reuse their offsets, and a client holding an old
// position would read a hole, or another publication, as continuous. So
// both stream scripts take the node's view of the server (its replid, and
// the live masters', for slot migrations) and give a room whose
// history changed a new epoch: its subscribers are told (3005, then
// recovered: false), never shown a reused offset. Nodes send '' when
// cluster.redis.new_history = "continue" (no check).
//
// KEYS meta, history, and the idempotency key's (idempotency_key(); only
// for a publish that names one). ARGV channel, candidate epoch (used when
// the room has none, or its history changed), history size, history TTL
// ms, meta TTL ms, frame head, frame tail, replid, live replids, and the
// idempotency window ms with the third key. Returns {top, epoch}: of this
// publication, or of the first one under the same key within the window
// (which is then all the script does: idempotency_window.hpp).
extern const redis::Script kPublishScript;
// KEYS meta, history, presence. ARGV create (1: give the room an epoch if it
// has none), candidate epoch, after (-1: none wanted), history TTL ms, meta
// TTL ms, presence field ("" none), presence body, presence TTL ms,
// channel, join frame ("" none), replid, live replids (lineage, above).
// Returns {epoch ("" when the room has none
// and create is 0), top, first, frames...}: the unexpired publications with
// offsets first.. top that come after `after`.
extern const redis::Script kReadScript;
// KEYS presence. ARGV field, channel, leave frame ("" none).
extern const redis::Script kLeaveScript;
// KEYS presence. Returns the unexpired entries as field, value pairs (and
// deletes expired ones).
extern const redis::Script kPresenceScript;
// KEYS presence. ARGV TTL ms, then field, body pairs: the node's entries,
// refreshed (their expiry moved to now + TTL).
extern const redis::Script kRefreshScript;

// Every script above, which each node's Redis clients load on connect
// (redis::Options::scripts).
[[nodiscard]] std::vector<const redis::Script*> all_scripts();

// The push frame split around the offset and the epoch, which only the
// publish script knows: head + offset + ",\"epoch\":\"" + epoch + "\"" + tail
// equals protocol::encode_pub_push (a test compares them).
struct FrameParts {
  std::string head, tail;
};
[[nodiscard]] FrameParts frame_parts(std::string_view room, std::string_view data_json,
                                     std::string_view info_json,
                                     std::string_view moderation_json = {},
                                     std::string_view tags_json = {});
[[nodiscard]] std::string assemble_frame(const FrameParts& parts, std::uint64_t offset,
                                         std::string_view epoch);

// KEYS nodes hash. ARGV node id, TTL ms, body (node_body), leave (1: remove
// the entry instead). Returns the live entries as id, value pairs (and
// deletes expired ones): the node registry's heartbeat, one round trip.
extern const redis::Script kNodesScript;

// A node's entry: "<expires_ms> <connections> <port> <host> <clients>
// <users> <rooms> <subscriptions> <started_unix_s> <version>". An entry of
// the first four fields alone (a Herald before the stats) is read with its
// stats zero.
struct NodeValue {
  std::int64_t expires_ms = 0;
  std::uint64_t connections = 0;
  std::uint16_t port = 0;
  std::string_view host;
  NodeStats stats;
};
[[nodiscard]] std::string node_body(std::uint64_t connections, std::string_view host,
                                    std::uint16_t port, const NodeStats& stats);
[[nodiscard]] std::optional<NodeValue> parse_node_value(std::string_view value);

// The survey channel, <prefix>survey (survey.hpp), carries:
//   "q <asker> <id> <question>"            node <asker>'s question number <id>
//   "a <asker> <id> <answerer> <answer>"   node <answerer>'s answer to it
// Node ids are DNS labels (no spaces); the question and the answer are the
// rest of the message, any bytes.
[[nodiscard]] std::string survey_question(std::string_view asker, std::uint64_t id,
                                          std::string_view question);
[[nodiscard]] std::string survey_answer(std::string_view asker, std::uint64_t id,
                                        std::string_view answerer, std::string_view answer);
struct SurveyMessage {
  bool answer = false;  // else a question
  std::string_view asker;
  std::uint64_t id = 0;
  std::string_view answerer;  // answers only
  std::string_view body;      // the question, or the answer
};
// nullopt for anything not in the format above.
[[nodiscard]] std::optional<SurveyMessage> parse_survey_message(std::string_view payload);

// "e <frame>": an event on a room channel, outside the stream (a join or
// leave push, a skip_history publication); the scripts write the same.
[[nodiscard]] std::string event_message(std::string_view frame);

// A message on a room channel.
struct ChannelMessage {
  bool publication = false;  // else an event outside the stream, not sequenced
  std::uint64_t offset = 0;
  std::string_view epoch;
  std::string_view frame;  // the push, as clients get it
};
// nullopt for anything not in the format above (another writer on the
// channel, a corrupted payload): the caller drops it and counts it.
[[nodiscard]] std::optional<ChannelMessage> parse_channel_message(std::string_view payload);

// The read script's reply.
struct ReadReply {
  std::string epoch;
  std::uint64_t top = 0;
  std::uint64_t first = 0;  // offset of frames[0]; top + 1 when frames is empty
  std::vector<std::string> frames;
};
// nullopt when the reply is not shaped as the script returns it.
[[nodiscard]] std::optional<ReadReply> parse_read_reply(const redis::Reply& reply);

struct PresenceValue {
  std::int64_t expires_ms = 0;  // Redis clock (TIME), set by the scripts
  std::string_view user;
  std::string_view info_json;
};
// What a node stores for one presence entry; the scripts prefix it with
// "<expires_ms> " from Redis's own clock, so nodes' clocks never compare.
[[nodiscard]] std::string presence_body(std::string_view user, std::string_view info_json);
[[nodiscard]] std::optional<PresenceValue> parse_presence_value(std::string_view value);

}  // namespace herald::gateway::broker::redis_schema
