// The broker owns every room's stream: it assigns offsets, keeps history,
// tracks which shards have subscribers and presence, and delivers each
// publication to those shards. The gateway talks to it only through this
// interface, so the embedded broker (MemoryBroker, one process) and a Redis
// broker (many nodes) are interchangeable.
//
// Threading contract: every call is made on a shard thread and names that
// shard (`from`); every callback runs later on that same shard, never inline.
// Deliveries run on the receiving shard through the Delivery callback.
//
// Ordering contract, which recovery rests on: for one room, a shard receives
// deliveries in offset order, and a subscribe callback arrives after every
// delivery of a publication its result includes (by offset <= result.offset)
// and before every delivery of a later one. A session that joins the shard's
// local subscriber set when its callback runs therefore sees each
// publication exactly once: from the result, or live. A publication outside
// the stream (skip_history) reaches the shards that have subscribers when
// the broker handles it, and no subscribe result includes it.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "gateway/frame.hpp"
#include "gateway/protocol/codes.hpp"
#include "gateway/protocol/command.hpp"

namespace herald::gateway {

struct BrokerError {
  protocol::ErrorCode code;
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
  // Outside the room's stream (the publish hook's or the server API's
  // skip_history): no offset, no history, delivered live only to the
  // subscribers of the moment (protocol::encode_live_pub_push). A room that
  // does not exist has none, so such a publish opens no room.
  bool skip_history = false;
};
struct PublishResult {
  std::optional<BrokerError> error;
  bool in_stream = true;  // false for skip_history: offset and epoch are unset
  std::uint64_t offset = 0;
  std::string epoch;
};

struct SubscribeRequest {
  std::string room;
  std::optional<protocol::StreamPosition> since;
  std::string client;     // connection id, for presence
  std::string user;       // for presence_stats
  std::string info_json;  // presence entry and join/leave payload
};
struct SubscribeResult {
  std::optional<BrokerError> error;
  std::string epoch;
  std::uint64_t offset = 0;  // the stream's top when the subscription took effect
  bool recovered = false;    // since given and every later publication is in `publications`
  std::vector<FramePtr> publications;  // offsets in (since.offset, offset], in order
};

struct HistoryRequest {
  std::string room;
  std::optional<std::uint32_t> limit;
  std::optional<protocol::StreamPosition> since;
  bool reverse = false;
};
struct HistoryResult {
  std::optional<BrokerError> error;
  std::string epoch;
  std::uint64_t offset = 0;
  std::vector<FramePtr> publications;
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

class Broker {
 public:
  // Runs on `shard`: give `frame` to the local subscribers of `room`.
  using Delivery = std::function<void(unsigned shard, const std::string& room, const FramePtr&)>;

  virtual ~Broker() = default;

  virtual void publish(unsigned from, PublishRequest request,
                       std::function<void(PublishResult)> done) = 0;
  // Registers one subscription of shard `from` (for delivery and presence)
  // and reads what the client missed, in one atomic step.
  virtual void subscribe(unsigned from, SubscribeRequest request,
                         std::function<void(SubscribeResult)> done) = 0;
  // Undoes one successful subscribe. No callback: nothing can fail that the
  // client could act on.
  virtual void unsubscribe(unsigned from, std::string room, std::string client) = 0;
  virtual void history(unsigned from, HistoryRequest request,
                       std::function<void(HistoryResult)> done) = 0;
  virtual void presence(unsigned from, std::string room,
                        std::function<void(PresenceResult)> done) = 0;

  // Starts timers (and connections); called before the shards run.
  virtual void start() = 0;
  // Stops timers; called on shutdown before the shards stop.
  virtual void stop() = 0;
};

}  // namespace herald::gateway
