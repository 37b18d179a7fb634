// The embedded broker: every room has a home shard (a hash of its name), and
// all of the room's state (epoch, offsets, history ring, which shards
// subscribe, presence) lives there and is touched only by that shard's
// thread. Work for a room is posted to its home shard; results and
// deliveries are posted back. Posts from one thread to one io_context run in
// the order they were made, which gives the ordering contract of broker.hpp:
// the home shard posts a subscribe result and the later deliveries to the
// subscriber's shard in sequence.
#pragma once

#include <boost/asio/post.hpp>

#include <memory>
#include <string>
#include <unordered_map>

#include "core/metrics/registry.hpp"
#include "gateway/broker/broker.hpp"
#include "gateway/broker/broker_counters.hpp"
#include "gateway/limits/room_budget.hpp"
#include "gateway/options.hpp"
#include "gateway/shard_pool.hpp"

namespace herald::gateway::broker {

class MemoryBroker final : public Broker {
 public:
  MemoryBroker(const Options& options, ShardPool& pool, Delivery deliver,
               metrics::Registry& registry);
  ~MemoryBroker() override;

  // Starts the per-shard sweep timers (expired history, idle rooms). Call
  // before the pool runs.
  void start() override;

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

  // The shard that owns `room`.
  [[nodiscard]] unsigned home_of(std::string_view room) const;

 private:
  struct Home;
  struct Room;
  using RoomMap = std::unordered_map<std::string, Room>;
  void sweep(unsigned shard);
  // The room's state on its home shard, created on first use when the room
  // budget allows; end() when it does not. Runs on the home shard.
  RoomMap::iterator open_room(Home& home, const std::string& name, const RoomOptions& options);
  // Frees `it` now if it holds nothing: no subscribers, never published to.
  void free_if_empty(Home& home, RoomMap::iterator it);
  // Frees a room and gives its unit of the budget back.
  RoomMap::iterator free_room(Home& home, RoomMap::iterator it);
  // A skip_history publish, on the room's home shard: delivered to the
  // shards with subscribers now, outside the room's stream.
  void publish_live(Home& home, unsigned from, const protocol::PublishRequest& req,
                    std::function<void(protocol::PublishResult)> done);
  // Sends a join or leave push, within the room's join_leave_rate.
  void push_presence(Room& room, const std::string& name, bool join, const std::string& info);
  // Posts `frame` once to every shard with subscribers of the room.
  void fan_out(const Room& room, const std::string& name, const fanout::MessagePtr& frame);
  // Runs `done(result)` on shard `from`, never inline.
  template <class Result>
  void reply(unsigned from, std::function<void(Result)> done, Result result) {
    pool_.reply(from, std::move(done), std::move(result));
  }

  const Options& options_;
  ShardPool& pool_;
  Delivery deliver_;
  std::vector<std::unique_ptr<Home>> homes_;
  BrokerCounters counters_;
  limits::RoomBudget budget_;
};

}  // namespace herald::gateway::broker
