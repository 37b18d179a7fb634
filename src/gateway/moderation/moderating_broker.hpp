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

#include "gateway/broker/forwarding_broker.hpp"
#include "gateway/moderation/moderator.hpp"
#include "gateway/shard_pool.hpp"

namespace herald::gateway::moderation {

class ModeratingBroker final : public broker::ForwardingBroker {
 public:
  // `inner`, `moderator` and `pool` must outlive this broker.
  ModeratingBroker(broker::Broker& inner, Moderator& moderator, ShardPool& pool)
      : ForwardingBroker(inner), moderator_(moderator), pool_(pool), waiting_(pool.size()) {}

  // Publications of one namespace on one shard that may wait for its engine.
  static constexpr std::size_t kMaxWaiting = 4096;

  void publish(unsigned from, protocol::PublishRequest request,
               std::function<void(protocol::PublishResult)> done) override;

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

  Moderator& moderator_;
  ShardPool& pool_;
  // [shard][policy]: each shard's queues, touched only on that shard.
  std::vector<std::map<const Policy*, Queue>> waiting_;
};

}  // namespace herald::gateway::moderation
