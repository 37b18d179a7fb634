// The cluster broker: rooms, history and presence live in Redis, shared by
// every node pointed at it (docs/cluster.md teaches the design; the keys
// and scripts are in redis_schema.hpp).
//
// Threading: the broker has one thread of its own with its own io_context,
// which owns the Redis client and every piece of node-level room state.
// Shard calls post to it; results and deliveries are posted from it to the
// shards. Posts from one thread to one io_context run in order, which gives
// broker.hpp's ordering contract as long as this thread posts, per room,
// deliveries in offset order and each subscribe result after the
// deliveries it includes and before later ones. The node's per-room stream
// (`delivered`) is what makes that true:
//
//  - A publish is one EVALSHA (one round trip): Redis appends it to the
//    history, assigns the offset and PUBLISHes it. Nodes deliver only what
//    arrives on the room's channel, in offset order.
//  - A publication outside the stream (skip_history) is a plain PUBLISH of
//    an event, like a join or leave: no offset, delivered as it arrives.
//    Among the stream's publications it keeps the channel's order, except
//    while a node holds messages to read a gap, when it goes ahead of them.
//  - Each node subscribes to a room's channel once, while it has local
//    subscribers (counted per shard), and leaves it after the last one.
//  - A message whose offset is not delivered + 1 (a lost message, a
//    reconnect, another epoch) is held while the node reads the gap from the
//    history; only then does delivery continue. When the history no longer
//    has the gap, or the epoch changed (Redis lost the room), the room's
//    local subscribers are disconnected with 3005 and their resubscribe
//    says recovered=false: never a silent hole.
//  - After every reconnect to Redis the node reads each followed room's
//    history since its last delivered offset.
//
// Budgets (limits/): the rooms a node follows count against
// rooms.max_rooms (a subscribe that would follow one more is refused with
// 115 before anything reaches Redis); a name gets keys in Redis only from a
// publish or a subscribe that succeeds (a refused subscribe sends nothing,
// and history reads without creating the room's epoch); join and leave
// pushes are sent within the room's join_leave_rate, counted per node (by
// name, apart from the room state: limits/room_rates.hpp says why).
#pragma once

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>

#include "core/metrics/registry.hpp"
#include "gateway/broker/broker.hpp"
#include "gateway/broker/broker_counters.hpp"
#include "gateway/broker/node_registry.hpp"
#include "gateway/broker/publication_ring.hpp"
#include "gateway/broker/redis_schema.hpp"
#include "gateway/broker/survey.hpp"
#include "gateway/limits/room_budget.hpp"
#include "gateway/limits/room_rates.hpp"
#include "gateway/options.hpp"
#include "gateway/shard_pool.hpp"
#include "redis/client.hpp"
#include "redis/router.hpp"

namespace herald::gateway::broker {

class RedisBroker final : public Broker {
 public:
  // Runs on `shard`: the local subscribers of `room` must be disconnected
  // (3005), their stream could not be continued without a hole.
  using Reset = std::function<void(unsigned shard, const std::string& room)>;

  // Throws std::runtime_error naming cluster.redis.shards when an entry is
  // not an address, and, for a Redis Cluster, naming cluster.redis.address
  // or .password when its slot map cannot be read (redis::Router).
  RedisBroker(const Options& options, ShardPool& pool, Delivery deliver, Reset reset,
              metrics::Registry& registry);
  ~RedisBroker() override;

  // Starts the broker thread and connects (in the background).
  void start() override;
  // Waits up to `timeout` for the first connection; false if not there
  // yet, at once when a Redis refuses the credentials (refusal()).
  bool wait_ready(std::chrono::milliseconds timeout) const;
  // While some Redis refuses cluster.redis.username/password: why
  // (redis::Router::refusal), for the first such server.
  [[nodiscard]] std::optional<std::string> refusal() const;
  // Joins the node registry as `self`, reporting `report` at each beat;
  // `listener` runs on the broker thread with the live nodes whenever what
  // discovery serves of them changes. Call after start().
  void register_node(ClusterNode self, NodeRegistry::Report report,
                     NodeRegistry::Listener listener);
  // Runs `done` on shard `from` with the live nodes as of the last beat
  // (empty before the first answer), their stats included.
  void nodes(unsigned from, std::function<void(std::vector<ClusterNode>)> done);
  // Puts `question` to every other live node (survey.hpp) and runs `done`
  // on shard `from` with their answers, or why not. `responder` answers
  // the other nodes' questions; set it before start().
  void survey(unsigned from, std::string question, std::function<void(SurveyResult)> done);
  void set_survey_responder(Survey::Responder responder);

  void publish(unsigned from, protocol::PublishRequest request,
               std::function<void(protocol::PublishResult)> done) override;
  void subscribe(unsigned from, protocol::SubscribeRequest request,
                 std::function<void(protocol::SubscribeResult)> done) override;
  void unsubscribe(unsigned from, std::string room, std::string client,
                   std::optional<std::string> leave_info) override;
  void unfollow(unsigned from, std::string room) override;
  void history(unsigned from, protocol::HistoryRequest request,
               std::function<void(protocol::HistoryResult)> done) override;
  void presence(unsigned from, std::string room,
                std::function<void(protocol::PresenceResult)> done) override;
  void update_presence(unsigned from, std::string room, std::string client, std::string user,
                       std::string info_json) override;
  void history_remove(unsigned from, std::string room,
                      std::function<void(protocol::HistoryRemoveResult)> done) override;
  void stop() override;

 private:
  struct Room;
  struct PendingSubscribe;

  // Everything below runs on the broker thread.
  // The node's state of a room, created when the room budget allows;
  // null when it does not.
  Room* open_room(const std::string& name);
  // A skip_history publish: PUBLISHed on the room's channel as an event,
  // outside the stream (redis_schema.hpp).
  void publish_live(unsigned from, const protocol::PublishRequest& req,
                    std::function<void(protocol::PublishResult)> done);
  // Sends a publish's command (and its WAIT, with cluster.redis.wait_replicas)
  // to the room's server; `read` turns the first reply into the result (a
  // transport or Redis error is read here).
  void send_publish(unsigned from, const std::string& room, std::vector<redis::Command> pipeline,
                    std::function<void(protocol::PublishResult)> done,
                    protocol::PublishResult (*read)(const redis::Reply&));
  // The error for a publish whose WAIT (the second reply of `r`) counted
  // fewer replicas than cluster.redis.wait_replicas; nullopt when enough.
  [[nodiscard]] std::optional<protocol::BrokerError> not_durable(
      const redis::Result& r, const protocol::PublishResult& published) const;
  // The lineage arguments of the stream scripts for `room`
  // (redis_schema.hpp): its server's replid and the live masters' (live_replids_).
  struct Lineage {
    std::string mine;
    std::string live;
  };
  [[nodiscard]] Lineage lineage_of(const std::string& room) const;
  // Rebuilds live_replids_ when a server comes or goes, not per publish.
  void note_live_replids();
  void join_channel(const std::string& name, Room& room);
  void on_joined(const std::string& name, std::uint64_t id, const redis::Result& r);
  void run_subscribe(const std::string& name, Room& room, PendingSubscribe op);
  void on_subscribed(const std::string& name, std::uint64_t id, PendingSubscribe op,
                     const redis::Result& r);
  void fail_subscribe(Room& room, PendingSubscribe op, const std::string& why);
  void on_message(const std::string& name, std::string_view payload);
  void catch_up(const std::string& name, Room& room);
  // Brings the node's stream of `room` up to the read's top: delivers what
  // it had not, or resets the room when that is impossible.
  void sync_to(const std::string& name, Room& room, const redis_schema::ReadReply& read,
               std::uint64_t since_seq);
  void drain(const std::string& name, Room& room);
  void deliver(const std::string& name, Room& room, std::uint64_t offset,
               const fanout::MessagePtr& frame);
  void reset(const std::string& name, Room& room, const char* why);
  void fan_out(const std::string& name, const Room& room, const fanout::MessagePtr& frame);
  void release_if_unused(const std::string& name);
  // The Redis server of a room's keys, and sending a pipeline of the
  // room's commands there (redirections followed: redis::Router).
  redis::Router::Server server_of(const std::string& room) const;
  void execute(const std::string& room, std::vector<redis::Command> pipeline,
               redis::Client::Done done);
  void on_ready(redis::Router::Server server);
  void on_down(redis::Router::Server server);
  void refresh_presence();
  // The refresh script's call for the room's presence key, without its
  // (client, body) pairs: refresh_presence() adds every local entry,
  // update_presence() the one it changed.
  [[nodiscard]] redis::Command presence_refresh(const std::string& name) const;
  std::string new_epoch();
  // Whether a read gives the room an epoch when it has none (and renews
  // its stream_ttl): subscribes and the node's own catch-up do; history
  // only reads.
  enum class Create : std::uint8_t { no, yes };
  // The read script's command for `room` (redis_schema::kReadScript:
  // publications after `after`, "-1" for none), with a presence entry and a
  // join frame to add in the same step (empty: none).
  redis::Command read_command(const std::string& room, Create create, std::string after,
                              std::string field = {}, std::string body = {}, std::string join = {});
  template <class Result>
  void reply(unsigned from, std::function<void(Result)> done, Result result);

  const Options& options_;
  const ClusterOptions& cluster_;
  ShardPool& pool_;
  Delivery deliver_;
  Reset reset_;
  boost::asio::io_context io_{1};
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work_;
  std::thread thread_;
  // The Redis servers (or Redis Cluster masters) holding rooms and the
  // node registry; used on the broker thread, except its any-thread
  // readers (readiness, round trips).
  std::unique_ptr<redis::Router> router_;
  std::unique_ptr<NodeRegistry> registry_;
  std::string nodes_key_;  // the node registry's hash
  std::unique_ptr<Survey> survey_;
  std::string survey_channel_;
  // Redis Cluster: the replids of the masters connected now, space-separated
  // (the stream scripts' `live` argument); empty for other topologies.
  std::string live_replids_;
  boost::asio::steady_timer presence_timer_;
  std::unordered_map<std::string, Room> rooms_;
  std::uint64_t next_room_id_ = 0;
  std::uint64_t message_seq_ = 0;  // channel messages received, for catch-up bookkeeping
  bool stopped_ = false;

  BrokerCounters counters_;
  limits::RoomBudget budget_;     // the rooms in rooms_
  limits::RoomRates join_leave_;  // join/leave pushes sent, by room (rooms.join_leave_rate)
  metrics::Counter& gap_fetches_;
  metrics::Counter& resets_;
  metrics::Counter& bad_messages_;
};

}  // namespace herald::gateway::broker
