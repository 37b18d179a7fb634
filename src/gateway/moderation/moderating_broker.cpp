#include "gateway/moderation/moderating_broker.hpp"

#include <boost/asio/post.hpp>

namespace herald::gateway::moderation {
namespace {

PublishResult refused(protocol::ErrorCode code, std::string message) {
  PublishResult r;
  r.error = BrokerError{code, std::move(message)};
  return r;
}

}  // namespace

void ModeratingBroker::publish(unsigned from, PublishRequest request,
                               std::function<void(PublishResult)> done) {
  Policy* policy = moderator_.policy_of(request.room);
  if (policy == nullptr) return inner_.publish(from, std::move(request), std::move(done));
  moderate_then_publish(from, *policy, std::move(request), std::move(done), false);
}

void ModeratingBroker::moderate_then_publish(unsigned from, Policy& policy, PublishRequest request,
                                             std::function<void(PublishResult)> done,
                                             bool retried) {
  std::optional<Verdict> v = moderator_.moderate(policy, request);
  if (!v) {
    if (retried) {
      return answer(
          from, std::move(done),
          refused(protocol::ErrorCode::unavailable,
                  "moderation dictionaries of '" + request.room + "' are not loaded; try again"));
    }
    // Not loaded in this process yet: load, then moderate on shard `from`.
    auto req = std::make_shared<PublishRequest>(std::move(request));
    auto cb = std::make_shared<std::function<void(PublishResult)>>(std::move(done));
    // `*cb` holds the publisher's session: it is moved out on the shard, so
    // the store's thread, which may drop the last `cb`, releases nothing.
    moderator_.load(policy, [this, from, &policy, req, cb](std::string error) {
      boost::asio::post(pool_[from].ctx, [this, from, &policy, req, cb, error = std::move(error)] {
        if (!error.empty()) {
          auto refuse = std::move(*cb);
          return refuse(refused(
              protocol::ErrorCode::unavailable,
              "moderation is unavailable for '" + req->room + "': " + error + "; try again"));
        }
        moderate_then_publish(from, policy, std::move(*req), std::move(*cb), true);
      });
    });
    return;
  }
  switch (v->kind) {
    case Verdict::Kind::pass:
      return inner_.publish(from, std::move(request), std::move(done));
    case Verdict::Kind::reject:
      return answer(from, std::move(done),
                    refused(protocol::ErrorCode::moderation_rejected, std::move(v->message)));
    case Verdict::Kind::unavailable:
      return answer(from, std::move(done),
                    refused(protocol::ErrorCode::unavailable, std::move(v->message)));
  }
}

void ModeratingBroker::answer(unsigned from, std::function<void(PublishResult)> done,
                              PublishResult result) {
  boost::asio::post(
      pool_[from].ctx,
      [done = std::move(done), result = std::move(result)]() mutable { done(std::move(result)); });
}

}  // namespace herald::gateway::moderation
