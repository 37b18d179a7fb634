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
#include "gateway/options.hpp"
#include "gateway/shard_pool.hpp"

namespace herald::gateway {

class MemoryBroker final : public Broker {
 public:
  MemoryBroker(const Options& options, ShardPool& pool, Delivery deliver,
               metrics::Registry& registry);
  ~MemoryBroker() override;

  // Starts the per-shard sweep timers (expired history, idle rooms). Call
  // before the pool runs.
  void start() override;

  void publish(unsigned from, PublishRequest request,
               std::function<void(PublishResult)> done) override;
  void subscribe(unsigned from, SubscribeRequest request,
                 std::function<void(SubscribeResult)> done) override;
  void unsubscribe(unsigned from, std::string room, std::string client) override;
  void history(unsigned from, HistoryRequest request,
               std::function<void(HistoryResult)> done) override;
  void presence(unsigned from, std::string room, std::function<void(PresenceResult)> done) override;
  void stop() override;

  // The shard that owns `room`.
  [[nodiscard]] unsigned home_of(std::string_view room) const;

 private:
  struct Home;
  struct Room;
  void sweep(unsigned shard);
  // The room's state on its home shard, created (with a new epoch) on first
  // use. Runs on the home shard.
  std::unordered_map<std::string, Room>::iterator room_entry(Home& home, const std::string& name,
                                                             const RoomOptions& options);
  // Posts `frame` once to every shard with subscribers of the room.
  void fan_out(const Room& room, const std::string& name, const FramePtr& frame);
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
};

}  // namespace herald::gateway
