// A Broker that moderates publications before handing them to the broker it
// wraps (memory or Redis): every publish path (client publish, /api/publish,
// /api/broadcast) goes through the broker, so this is the one place
// moderation happens, once per publication and before the publication is
// encoded. Everything else is passed through unchanged.
//
// Waiting. A publication whose namespace's engine is not ready (a
// dictionary not loaded yet, or its own engine being rebuilt after an edit)
// is queued, and the engine is prepared off the shard (moderator.hpp). The
// queue is per namespace and per shard, touched only on its shard: while it
// holds anything, every later publication of that namespace on that shard
// queues behind it, so a publisher's publications keep their order (a
// connection lives on one shard). Other namespaces and other connections of
// the shard carry on. When the engine is ready the queue is moderated and
// published in order; at most kMaxWaiting wait, and one more is refused
// with 114 (unavailable, try again).
#pragma once

#include <deque>
#include <map>
#include <vector>

#include "gateway/broker/broker.hpp"
#include "gateway/moderation/moderator.hpp"
#include "gateway/shard_pool.hpp"

namespace herald::gateway::moderation {

class ModeratingBroker final : public broker::Broker {
 public:
  // `inner`, `moderator` and `pool` must outlive this broker.
  ModeratingBroker(broker::Broker& inner, Moderator& moderator, ShardPool& pool)
      : inner_(inner), moderator_(moderator), pool_(pool), waiting_(pool.size()) {}

  // Publications of one namespace on one shard that may wait for its engine.
  static constexpr std::size_t kMaxWaiting = 4096;

  void publish(unsigned from, protocol::PublishRequest request,
               std::function<void(protocol::PublishResult)> done) override;
  void subscribe(unsigned from, protocol::SubscribeRequest request,
                 std::function<void(protocol::SubscribeResult)> done) override {
    inner_.subscribe(from, std::move(request), std::move(done));
  }
  void unsubscribe(unsigned from, std::string room, std::string client,
                   std::optional<std::string> leave_info) override {
    inner_.unsubscribe(from, std::move(room), std::move(client), std::move(leave_info));
  }
  void history(unsigned from, protocol::HistoryRequest request,
               std::function<void(protocol::HistoryResult)> done) override {
    inner_.history(from, std::move(request), std::move(done));
  }
  void presence(unsigned from, std::string room,
                std::function<void(protocol::PresenceResult)> done) override {
    inner_.presence(from, std::move(room), std::move(done));
  }
  void update_presence(unsigned from, std::string room, std::string client, std::string user,
                       std::string info_json) override {
    inner_.update_presence(from, std::move(room), std::move(client), std::move(user),
                           std::move(info_json));
  }
  void history_remove(unsigned from, std::string room,
                      std::function<void(protocol::HistoryRemoveResult)> done) override {
    inner_.history_remove(from, std::move(room), std::move(done));
  }
  void start() override { inner_.start(); }
  void stop() override { inner_.stop(); }

 private:
  struct Waiting {
    protocol::PublishRequest request;
    std::function<void(protocol::PublishResult)> done;
  };
  using Queue = std::deque<Waiting>;

  // Publishes, refuses or answers as the verdict says. On shard `from`.
  void decide(unsigned from, protocol::PublishRequest request, const Verdict& verdict,
              std::function<void(protocol::PublishResult)> done);
  // Prepares the policy's engine off the shard, then drains the queue on it.
  void prepare_then_drain(unsigned from, Policy& policy);
  // Moderates and publishes the queue in order until it is empty or its
  // head must wait again. `error`: the preparation failed; the queue is
  // refused. On shard `from`.
  void drain(unsigned from, Policy& policy, const std::string& error);
  // Answers on shard `from`, never inline (the Broker contract).
  void answer(unsigned from, std::function<void(protocol::PublishResult)> done,
              protocol::PublishResult result);

  broker::Broker& inner_;
  Moderator& moderator_;
  ShardPool& pool_;
  // [shard][policy]: each shard's queues, touched only on that shard.
  std::vector<std::map<const Policy*, Queue>> waiting_;
};

}  // namespace herald::gateway::moderation
