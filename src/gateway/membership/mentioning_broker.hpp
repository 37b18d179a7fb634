// MentioningBroker: what a publication changes in the users' kept room
// state (issue 43, docs/plans/room-state.md), written where every publish
// path passes: it wraps the broker, as moderation does, and acts on the
// answer of an in-stream publication.
//
//   - Each user its data.text mentions (protocol/mentions.hpp) gets a
//     mention in the room (state::AddMention; the store answers not_member
//     for a user who is not one, and nothing is written).
//   - Its sender has read the room up to it (state::SetRead): sending reads
//     the room, as the sender's room list shows at once.
//
// So a publication costs at most max_mentions + 1 changes, batched with
// the others by the state writer, whatever the room's size: its M members'
// unread counts are derived from the stream (state::unread_after) and cost
// no write. Each change kept is told (`told`) so that the user's
// connections show it; a change the writer's full queue refuses is
// dropped and counted, never waited for: the publication was answered
// already.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "gateway/broker/forwarding_broker.hpp"
#include "state/writer.hpp"

namespace herald::gateway::membership {

class MentioningBroker final : public broker::ForwardingBroker {
 public:
  // A kept change of `user`'s membership of `room`; on the writer's thread.
  using Told = std::function<void(const std::string& user, const std::string& room)>;
  // `inner` and `writer` must outlive this broker.
  MentioningBroker(broker::Broker& inner, state::Writer& writer, std::size_t max_mentions,
                   Told told)
      : ForwardingBroker(inner),
        writer_(writer),
        max_mentions_(max_mentions),
        told_(std::move(told)) {}

  void publish(unsigned from, protocol::PublishRequest request,
               std::function<void(protocol::PublishResult)> done) override;

  // Changes dropped because the writer's queue was full.
  [[nodiscard]] std::uint64_t dropped() const { return dropped_.load(std::memory_order_relaxed); }

 private:
  // What one publication keeps, read from its request.
  struct Keep {
    std::string room, sender;
    std::vector<std::string> mentioned;  // at most max_mentions_, the sender left out
  };
  [[nodiscard]] Keep to_keep(const protocol::PublishRequest& request) const;
  // Submits those changes once the publication is in the stream at `at`.
  void keep(const Keep& what, const protocol::PublishResult& at);
  void submit(state::Change change, const std::string& user, const std::string& room);

  state::Writer& writer_;
  const std::size_t max_mentions_;
  Told told_;
  std::atomic<std::uint64_t> dropped_{0};
};

}  // namespace herald::gateway::membership
