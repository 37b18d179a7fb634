// What a client asks of a room's stream and what it gets back: the
// requests and results of the broker's interface (broker/broker.hpp), as
// plain values. They live in protocol/ because more than the broker speaks
// them: the client core builds the requests, the codecs encode the results
// (protocol/results.hpp), the budgets and rates refuse with a BrokerError,
// and none of those needs to know which broker answers.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gateway/fanout/message.hpp"
#include "gateway/protocol/codes.hpp"
#include "gateway/protocol/command.hpp"

namespace herald::gateway::protocol {

struct BrokerError {
  ErrorCode code;
  std::string message;
};

struct PublishRequest {
  std::string room;
  std::string data_json;  // valid, compact JSON
  std::string info_json;  // publisher info, or empty (server API)
  // What moderation found ({"masked":M,"flagged":F,"categories":[...]}), or
  // empty; moderation (gateway/moderation/) sets it before the broker sees
  // the request, and the broker stores it with the publication.
  std::string moderation_json{};
  // Centrifugo's publication tags (server API): a compact JSON object of
  // string values, or empty. Kept with the publication and handed to every
  // subscriber and history reader with it, as the publisher gave them.
  std::string tags_json{};
  // Outside the room's stream (the publish hook's or the server API's
  // skip_history): no offset, no history, delivered live only to the
  // subscribers of the moment (protocol::encode_live_pub_push). A room that
  // does not exist has none, so such a publish opens no room.
  bool skip_history = false;
  // Centrifugo's idempotency_key (server API): a publish to the same room
  // with the same key within broker::IdempotencyWindow::kWindow is
  // answered with the first one's offset and epoch and publishes nothing.
  // Empty: none. Not with skip_history (the API refuses the pair).
  std::string idempotency_key{};
};
struct PublishResult {
  std::optional<BrokerError> error;
  bool in_stream = true;  // false for skip_history: offset and epoch are unset
  std::uint64_t offset = 0;
  std::string epoch;
};

struct SubscribeRequest {
  std::string room;
  std::optional<StreamPosition> since;
  std::string client;     // connection id, for presence
  std::string user;       // for presence_stats
  std::string info_json;  // presence entry and join/leave payload
  // The subscription's presence (client/subscription_flags.hpp): listed,
  // the broker keeps its presence entry; announced, it pushes a join now
  // (and the leave comes with its unsubscribe).
  bool listed = false;
  bool announced = false;
  // A room list's follow (client/room_list_feed.hpp: a membership the
  // connection does not subscribe to): delivered to like a subscription,
  // under the same ordering contract, but no subscriber: not counted in
  // the room's subscribers nor against max_subscribers, never listed or
  // announced, and undone by Broker::unfollow.
  bool follow = false;
};
struct SubscribeResult {
  std::optional<BrokerError> error;
  std::string epoch;
  std::uint64_t offset = 0;  // the stream's top when the subscription took effect
  bool recovered = false;    // since given and every later publication is in `publications`
  std::vector<fanout::MessagePtr> publications;  // offsets in (since.offset, offset], in order
};

struct HistoryRequest {
  std::string room;
  std::optional<std::uint32_t> limit;
  std::optional<StreamPosition> since;
  bool reverse = false;
};
// A history's `since` names a position in one epoch of the room's stream:
// from another epoch its offset means nothing (the stream was reset), and
// the request is refused rather than answered from the wrong stream. An
// empty epoch is not checked: the offset is read in the current one
// (Centrifugo's clients leave the epoch out when they do not know it).
[[nodiscard]] inline std::optional<BrokerError> since_epoch_error(const HistoryRequest& req,
                                                                  const std::string& epoch) {
  if (!req.since || req.since->epoch.empty() || req.since->epoch == epoch) return std::nullopt;
  return BrokerError{
      ErrorCode::bad_request,
      "history.since.epoch is not the room's current epoch '" + epoch + "'; the stream was reset"};
}

struct HistoryResult {
  std::optional<BrokerError> error;
  std::string epoch;
  std::uint64_t offset = 0;
  std::vector<fanout::MessagePtr> publications;
};

// The room's kept publications dropped; its epoch and top offset stay, so
// the next publication continues the stream and a client holding an older
// position is told it cannot recover (never shown a hole as continuous).
struct HistoryRemoveResult {
  std::optional<BrokerError> error;
};

struct PresenceEntry {
  std::string client;
  std::string user;
  std::string info_json;
};
struct PresenceResult {
  std::optional<BrokerError> error;
  std::vector<PresenceEntry> clients;
};

}  // namespace herald::gateway::protocol
