// SubscriptionTable: the subscription states of one connection, room by room,
// as an explicit state machine. Pure: no asio, no broker, no clock. It decides;
// the client core (client/client.hpp) carries its decisions out through
// the Effects it is handed (ask the broker to subscribe, reply, join the
// hub, leave it, tell the broker to unsubscribe), and tells it the broker's
// answers.
//
// Why this shape
//
// 1. One registration per connection and room. The broker keys a
//    subscription by (room, connection): presence by client id, subscriber
//    counts per shard. So there is at most ONE broker subscribe in flight per
//    room, and a broker unsubscribe is sent only for a registration whose
//    answer came back successful (or it would undo nothing, or undo the
//    wrong one).
// 2. A command on a room whose subscribe is in flight cannot be decided yet:
//    whether a subscribe is "already subscribed", or an unsubscribe has
//    anything to undo, depends on the answer. Such commands wait in a queue
//    of that room and are replayed, oldest first, when the answer comes,
//    exactly as if they arrived then. Every command is therefore either
//    answered on arrival or queued and answered on replay, once; replies of
//    one room come in command order; and after the last answer the room is
//    in the state a synchronous broker would have left it in: what the last
//    command asked for. (The old code had one "cancelled" bit per room: it
//    could not remember a subscribe after an unsubscribe, so that subscribe
//    was refused or never answered, and the client ended unsubscribed.)
//    The queue is per room, not per connection: a slow room never holds
//    back commands on the others.
// 3. Recovery. The broker orders a subscribe's answer between the
//    deliveries its result includes and the later ones (broker.hpp); a
//    session sees each publication once only if it joins the hub exactly
//    when that answer runs. join_hub is emitted only by the answer of the
//    room's one subscribe in flight, in the same call as its reply.
// 4. Bounded. A room's queue holds at most `max_pending_per_room` commands
//    (client.max_pending_per_room); one more is answered at once with 106
//    limit_exceeded naming the setting (the one reply that overtakes the
//    room's queued ones). client.max_subscriptions counts rooms that are
//    pending or active: a pending room holds a registration to be.
// 5. Pure, so that every interleaving of commands and broker answers can be
//    driven by a test with a scripted broker (subscription_table_test.cpp
//    checks thousands of random ones against a sequential model); the
//    probes that found the bugs were such interleavings.
//
// States of a room (a room in `none` has no entry):
//
//   none         no registration, nothing in flight
//   pending(q)   a broker subscribe in flight (it carries its command's id);
//                q: the commands that arrived since, oldest first, |q| <= P
//   active       registered with the broker and joined to the hub
//   orphaned     the connection closed while a subscribe was in flight: its
//                answer is awaited only to undo the registration
//
// Transitions (P = max_pending_per_room, S = max_subscriptions, n = rooms
// pending or active; "replay q": q's commands are fed back, oldest first, as
// events of the new state, and once one of them sends a broker subscribe the
// rest stay queued behind it, in order):
//
// clang-format off
//   state       event                 new state         actions, in order
//   ----------  --------------------  ----------------  ------------------------------------------
//   none        subscribe, n < S      pending([])       broker_subscribe
//   none        subscribe, n = S      none              reply_error 106 (client.max_subscriptions)
//   none        unsubscribe           none              reply_error 110 not_subscribed, or
//                                                       reply_unsubscribed (Absent::succeeds)
//   none        disconnect            none              -
//   none        server unsubscribe    none              -
//   pending(q)  subscribe, |q| < P    pending(q+cmd)    -
//   pending(q)  unsubscribe, |q| < P  pending(q+cmd)    -
//   pending(q)  either, |q| = P       pending(q)        reply_error 106 (max_pending_per_room)
//   pending(q)  server unsubscribe    pending(q+event)  - (not counted in |q|; one right after
//                                                       another is dropped: it would find the
//                                                       room already left)
//   pending(q)  answer ok             active, replay q  join_hub, reply_subscribed
//   pending(q)  answer error          none, replay q    reply_broker_error
//   pending(q)  disconnect            orphaned          - (q dropped: nobody left to answer)
//   active      subscribe             active            reply_error 105 already_subscribed
//   active      unsubscribe           none              leave_hub, broker_unsubscribe,
//                                                       reply_unsubscribed
//   active      disconnect            none              leave_hub, broker_unsubscribe
//   active      server unsubscribe    none              leave_hub, broker_unsubscribe,
//                                                       push_unsubscribed
//   orphaned    answer ok             none              broker_unsubscribe (no reply)
//   orphaned    answer error          none              - (nothing was registered)
//   orphaned    disconnect            orphaned          -
// clang-format on
//
// A server unsubscribe is the server ending one subscription (the server
// API's unsubscribe, or a room whose stream was lost: client.hpp): the
// client is told by a push, not a reply, and only if it was subscribed; it
// takes its place in the room's order like a command, so a subscribe in
// flight is answered first and the push follows.
//
// After disconnect the connection is closed: commands are ignored (there is
// nobody to answer). An answer for a room with no subscribe in flight cannot
// happen (one in flight per room) and is ignored.
//
// Effects are called synchronously from the event that causes them and must
// not call back into the table. Single-threaded: it lives on the
// connection's shard.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "gateway/auth/subscribe_override.hpp"
#include "gateway/protocol/codes.hpp"
#include "gateway/protocol/command.hpp"

namespace herald::gateway::client {

// What a subscribe command carries to the table's broker_subscribe effect
// besides its room and position: opaque to the table, queued with the
// command. (At namespace scope: a default argument of the table's needs it
// complete.)
struct SubscribeArgs {
  std::string data;  // the command's data (JSON), for the subscribe hook, or empty
  // Set when a subscription token granted the subscribe (no hook is
  // asked): the token's info for the client's presence in the room
  // (chan_info; empty: none) and when the subscription ends unless the
  // token is refreshed (Unix seconds; nullopt: never).
  bool granted_by_token = false;
  std::string chan_info_json;
  std::optional<std::int64_t> expires;
  // The data the subscription carries to the client (JSON, or empty): a
  // server-side subscribe's, the server API's or a token's subs (id 0, its
  // push or its entry in the connect reply; its info is chan_info_json
  // above), or a subscription token's (the reply).
  std::string server_data;
  // A token's or the server API's override of the room's options for this
  // subscription, and whether the client asked for join and leave pushes
  // (client/subscription_flags.hpp).
  auth::SubscribeOverride override;
  std::optional<bool> join_leave;
};

class SubscriptionTable {
 public:
  using Since = std::optional<protocol::StreamPosition>;

  using Args = SubscribeArgs;

  // What the connection does for the table. Called in the order of the
  // transition table above.
  class Effects {
   public:
    // Ask the broker to subscribe; its answer comes back through answered().
    // `args` are the subscribe command's (Args).
    virtual void broker_subscribe(std::uint32_t id, const std::string& room, Since since,
                                  Args args) = 0;
    // Undo one successful broker subscribe.
    virtual void broker_unsubscribe(const std::string& room) = 0;
    // Join / leave the shard's local subscribers of `room` (the hub).
    virtual void join_hub(const std::string& room) = 0;
    virtual void leave_hub(const std::string& room) = 0;
    // Reply to subscribe `id` with the broker's answer being handled: its
    // result, or its error.
    virtual void reply_subscribed(std::uint32_t id, const std::string& room) = 0;
    virtual void reply_broker_error(std::uint32_t id, const std::string& room) = 0;
    // Reply to unsubscribe `id`: done.
    virtual void reply_unsubscribed(std::uint32_t id, const std::string& room) = 0;
    // Tell the client the server ended its subscription to `room`, with
    // the server unsubscribe's `code`; `id` is the one it was given.
    virtual void push_unsubscribed(std::uint32_t id, const std::string& room,
                                   protocol::UnsubscribeCode code) = 0;
    // Reply to command `id` with an error the table decided.
    virtual void reply_error(std::uint32_t id, const std::string& room, protocol::ErrorCode code,
                             std::string message) = 0;

   protected:
    ~Effects() = default;
  };

  // What an unsubscribe from a room the client is not in answers: an error
  // (Herald's protocol: the client is told it had it wrong) or success
  // (Centrifugo's: its SDKs reconnect the whole connection on an
  // unsubscribe error, so the protocol makes unsubscribing idempotent).
  enum class Absent : std::uint8_t { refused, succeeds };

  SubscriptionTable(std::uint32_t max_subscriptions, std::uint32_t max_pending_per_room,
                    Absent absent = Absent::refused)
      : max_subscriptions_(max_subscriptions),
        max_pending_per_room_(max_pending_per_room),
        absent_(absent) {}

  // The client's commands (room names already checked).
  void subscribe(std::uint32_t id, const std::string& room, Since since, Effects& fx,
                 Args args = {});
  void unsubscribe(std::uint32_t id, const std::string& room, Effects& fx);
  // The server ends the client's subscription to `room` (above); `id` names
  // the event to push_unsubscribed, `code` is the push's.
  void server_unsubscribe(std::uint32_t id, const std::string& room, protocol::UnsubscribeCode code,
                          Effects& fx);
  // The broker's answer to the subscribe in flight for `room`.
  void answered(const std::string& room, bool ok, Effects& fx);
  // The connection is gone: leave every active room; pending ones become
  // orphaned; later commands are ignored. Idempotent.
  void disconnect(Effects& fx);

  [[nodiscard]] bool is_active(const std::string& room) const;
  // Rooms pending or active: what client.max_subscriptions counts.
  [[nodiscard]] std::size_t counted() const { return counted_; }
  // The client's commands queued behind `room`'s subscribe in flight (what
  // max_pending_per_room bounds; server unsubscribes are not counted).
  [[nodiscard]] std::size_t queued(const std::string& room) const;

  template <typename F>
  void for_each_active(F&& f) const {
    for (const auto& [room, entry] : rooms_) {
      if (entry.state == State::active) f(room);
    }
  }

 private:
  enum class State : std::uint8_t { pending, active, orphaned };
  enum class Op : std::uint8_t { subscribe, unsubscribe, server_unsubscribe };
  struct Queued {
    std::uint32_t id;
    Op op;
    Since since;
    Args args;                         // subscribe: the command's
    protocol::UnsubscribeCode code{};  // server_unsubscribe: the push's code
  };
  struct Entry {
    State state = State::pending;
    std::uint32_t in_flight_id = 0;  // pending: the subscribe the broker is answering
    // pending: commands and server unsubscribes waiting for that answer,
    // oldest first (a vector: no allocation until one waits; at most
    // max_pending_per_room commands, and a server unsubscribe at most
    // after each)
    std::vector<Queued> queue;
    std::size_t commands_queued = 0;  // the client's commands in `queue`
  };

  // One command, applied to the room's current state.
  void apply(Queued cmd, const std::string& room, Effects& fx);

  std::unordered_map<std::string, Entry> rooms_;
  std::size_t counted_ = 0;  // entries pending or active
  std::uint32_t max_subscriptions_;
  std::uint32_t max_pending_per_room_;
  Absent absent_;
  bool closed_ = false;
};

}  // namespace herald::gateway::client
