#include "gateway/moderation/moderating_broker.hpp"

#include <boost/asio/post.hpp>

namespace herald::gateway::moderation {
namespace {

protocol::PublishResult refused(protocol::ErrorCode code, std::string message) {
  protocol::PublishResult r;
  r.error = protocol::BrokerError{code, std::move(message)};
  return r;
}

}  // namespace

void ModeratingBroker::publish(unsigned from, protocol::PublishRequest request,
                               std::function<void(protocol::PublishResult)> done) {
  Policy* policy = moderator_.policy_of(request.room);
  if (policy == nullptr) return inner_.publish(from, std::move(request), std::move(done));
  Queue& queue = waiting_[from][policy];
  if (queue.empty()) {
    Pending pending{};
    if (std::optional<Verdict> v = moderator_.moderate(*policy, request, pending))
      return decide(from, std::move(request), *v, std::move(done));
    queue.push_back({std::move(request), std::move(done)});
    return prepare_then_drain(from, *policy);
  }
  // Behind the ones already waiting, whatever the engine is now.
  if (queue.size() >= kMaxWaiting) {
    return answer(
        from, std::move(done),
        refused(protocol::ErrorCode::unavailable,
                "too many publications wait for moderation of '" + request.room + "'; try again"));
  }
  queue.push_back({std::move(request), std::move(done)});
}

void ModeratingBroker::decide(unsigned from, protocol::PublishRequest request,
                              const Verdict& verdict,
                              std::function<void(protocol::PublishResult)> done) {
  switch (verdict.kind) {
    case Verdict::Kind::pass:
      return inner_.publish(from, std::move(request), std::move(done));
    case Verdict::Kind::reject:
      return answer(from, std::move(done),
                    refused(protocol::ErrorCode::moderation_rejected, verdict.message));
    case Verdict::Kind::unavailable:
      return answer(from, std::move(done),
                    refused(protocol::ErrorCode::unavailable, verdict.message));
  }
}

void ModeratingBroker::prepare_then_drain(unsigned from, Policy& policy) {
  // The answer comes on the store's or the builder's thread (or inline):
  // it only posts, so the queue is touched on its shard alone, and it holds
  // no publisher's session (those stay in the queue), so no other thread
  // ever releases one.
  moderator_.prepare(policy, [this, from, &policy](std::string error) {
    boost::asio::post(pool_[from].ctx, [this, from, &policy, error = std::move(error)] {
      drain(from, policy, error);
    });
  });
}

void ModeratingBroker::drain(unsigned from, Policy& policy, const std::string& error) {
  Queue& queue = waiting_[from][&policy];
  while (!queue.empty()) {
    Waiting w = std::move(queue.front());
    queue.pop_front();
    if (!error.empty()) {
      answer(from, std::move(w.done),
             refused(protocol::ErrorCode::unavailable, "moderation is unavailable for '" +
                                                           w.request.room + "': " + error +
                                                           "; try again"));
      continue;
    }
    Pending pending{};
    std::optional<Verdict> v = moderator_.moderate(policy, w.request, pending);
    if (v) {
      decide(from, std::move(w.request), *v, std::move(w.done));
      continue;
    }
    if (pending == Pending::load) {
      // Just loaded, yet missing: refuse rather than wait in a loop.
      answer(
          from, std::move(w.done),
          refused(protocol::ErrorCode::unavailable,
                  "moderation dictionaries of '" + w.request.room + "' are not loaded; try again"));
      continue;
    }
    // A dictionary changed again since the build: build again, the head
    // keeps its place.
    queue.push_front(std::move(w));
    return prepare_then_drain(from, policy);
  }
}

void ModeratingBroker::answer(unsigned from, std::function<void(protocol::PublishResult)> done,
                              protocol::PublishResult result) {
  pool_.reply(from, std::move(done), std::move(result));
}

}  // namespace herald::gateway::moderation
