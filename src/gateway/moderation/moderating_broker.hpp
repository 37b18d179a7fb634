// A Broker that moderates publications before handing them to the broker it
// wraps (memory or Redis): every publish path (client publish, /api/publish,
// /api/broadcast) goes through the broker, so this is the one place
// moderation happens, once per publication and before the publication is
// encoded. Everything else is passed through unchanged.
#pragma once

#include "gateway/broker/broker.hpp"
#include "gateway/moderation/moderator.hpp"
#include "gateway/shard_pool.hpp"

namespace herald::gateway::moderation {

class ModeratingBroker final : public Broker {
 public:
  // `inner`, `moderator` and `pool` must outlive this broker.
  ModeratingBroker(Broker& inner, Moderator& moderator, ShardPool& pool)
      : inner_(inner), moderator_(moderator), pool_(pool) {}

  void publish(unsigned from, PublishRequest request,
               std::function<void(PublishResult)> done) override;
  void subscribe(unsigned from, SubscribeRequest request,
                 std::function<void(SubscribeResult)> done) override {
    inner_.subscribe(from, std::move(request), std::move(done));
  }
  void unsubscribe(unsigned from, std::string room, std::string client) override {
    inner_.unsubscribe(from, std::move(room), std::move(client));
  }
  void history(unsigned from, HistoryRequest request,
               std::function<void(HistoryResult)> done) override {
    inner_.history(from, std::move(request), std::move(done));
  }
  void presence(unsigned from, std::string room,
                std::function<void(PresenceResult)> done) override {
    inner_.presence(from, std::move(room), std::move(done));
  }
  void start() override { inner_.start(); }
  void stop() override { inner_.stop(); }

 private:
  // `retried`: the dictionaries were just loaded; if one is still missing,
  // refuse rather than wait again.
  void moderate_then_publish(unsigned from, Policy& policy, PublishRequest request,
                             std::function<void(PublishResult)> done, bool retried);
  // Answers on shard `from`, never inline (the Broker contract).
  void answer(unsigned from, std::function<void(PublishResult)> done, PublishResult result);

  Broker& inner_;
  Moderator& moderator_;
  ShardPool& pool_;
};

}  // namespace herald::gateway::moderation
