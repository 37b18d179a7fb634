// ForwardingBroker: a Broker that hands every call to the broker it wraps.
// A decorator that changes one call (moderation/moderating_broker.hpp
// changes publish, membership/mentioning_broker.hpp acts on publish's
// answer) derives from it and overrides that call, so the pass-through is
// written once.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "gateway/broker/broker.hpp"

namespace herald::gateway::broker {

class ForwardingBroker : public Broker {
 public:
  // `inner` must outlive this broker.
  explicit ForwardingBroker(Broker& inner) : inner_(inner) {}

  void publish(unsigned from, protocol::PublishRequest request,
               std::function<void(protocol::PublishResult)> done) override {
    inner_.publish(from, std::move(request), std::move(done));
  }
  void subscribe(unsigned from, protocol::SubscribeRequest request,
                 std::function<void(protocol::SubscribeResult)> done) override {
    inner_.subscribe(from, std::move(request), std::move(done));
  }
  void unsubscribe(unsigned from, std::string room, std::string client,
                   std::optional<std::string> leave_info) override {
    inner_.unsubscribe(from, std::move(room), std::move(client), std::move(leave_info));
  }
  void unfollow(unsigned from, std::string room) override {
    inner_.unfollow(from, std::move(room));
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

 protected:
  Broker& inner_;
};

}  // namespace herald::gateway::broker
