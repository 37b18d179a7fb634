// SubscriptionTable (src/gateway/client/subscription_table.hpp) against a scripted
// broker: named cases for the probes that found the old bugs, and random
// interleavings of subscribe / unsubscribe / server unsubscribe / publish /
// disconnect over three
// rooms, with the broker's answers (successes and errors) delivered at random
// later points, checked against a sequential model of what the commands ask.
#include "gateway/client/subscription_table.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <optional>
#include <ostream>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace herald::gateway::client {
namespace {

using protocol::ErrorCode;

// A reply, or (pushed) the push a server unsubscribe sends.
enum class Kind { subscribed, broker_error, unsubscribed, error, pushed };

struct Reply {
  std::uint32_t id;
  Kind kind;
  ErrorCode code = ErrorCode::internal;  // Kind::error only
  std::string message{};
};

struct Command {
  std::uint32_t id;
  std::string room;
  bool subscribe;
  bool server = false;  // a server unsubscribe (subscribe is false)
};

constexpr protocol::UnsubscribeCode kServerCode = protocol::UnsubscribeCode::server;

// The connection and the broker around the table: records every effect and
// checks, as it happens, the rules the effects must keep.
class Harness final : public SubscriptionTable::Effects {
 public:
  Harness(std::uint32_t max_subscriptions, std::uint32_t max_pending,
          SubscriptionTable::Absent absent = SubscriptionTable::Absent::refused)
      : table(max_subscriptions, max_pending, absent),
        max_subscriptions_(max_subscriptions),
        max_pending_(max_pending) {}

  // --- driving ---

  std::uint32_t subscribe(const std::string& room) {
    const std::uint32_t id = next_id_++;
    commands.push_back({id, room, true});
    log("subscribe " + std::to_string(id) + " " + room);
    in_command_ = id;
    table.subscribe(id, room, std::nullopt, *this);
    in_command_ = 0;
    check_count();
    return id;
  }
  std::uint32_t unsubscribe(const std::string& room) {
    const std::uint32_t id = next_id_++;
    commands.push_back({id, room, false});
    log("unsubscribe " + std::to_string(id) + " " + room);
    in_command_ = id;
    table.unsubscribe(id, room, *this);
    in_command_ = 0;
    check_count();
    return id;
  }
  // The server ends the subscription (pushed only if there is one).
  std::uint32_t server_unsubscribe(const std::string& room) {
    const std::uint32_t id = next_id_++;
    commands.push_back({id, room, false, true});
    log("server unsubscribe " + std::to_string(id) + " " + room);
    table.server_unsubscribe(id, room, kServerCode, *this);
    check_count();
    return id;
  }
  // The broker answers the subscribe in flight for `room`.
  void answer(const std::string& room, bool ok) {
    Room& r = rooms[room];
    check(r.in_flight.has_value(), "an answer for " + room + " with nothing in flight");
    log(std::string("answer ") + (ok ? "ok " : "error ") + room);
    r.in_flight.reset();
    if (ok) {
      check(!r.registered, "two registrations of " + room);
      r.registered = true;
      ++r.registrations;
    }
    if (disconnected) {
      orphan_answers.push_back({room, ok});
    } else {
      outcomes[room].push_back(ok);
    }
    answering_ = room;
    answer_ok_ = ok;
    table.answered(room, ok, *this);
    answering_.reset();
    check_count();
  }
  void publish(const std::string& room) {
    Room& r = rooms[room];
    ++r.top;
    if (r.joined) {
      check(r.seen + 1 == r.top, "delivery out of order in " + room);
      r.seen = r.top;
      ++r.delivered;
    }
  }
  void disconnect() {
    log("disconnect");
    disconnected = true;
    table.disconnect(*this);
  }
  [[nodiscard]] std::vector<std::string> in_flight() const {
    std::vector<std::string> out;
    for (const auto& [name, r] : rooms) {
      if (r.in_flight) out.push_back(name);
    }
    return out;
  }

  // --- the effects ---

  void broker_subscribe(std::uint32_t id, const std::string& room, SubscriptionTable::Since,
                        SubscriptionTable::Args) override {
    Room& r = rooms[room];
    check(!r.in_flight, "two subscribes in flight for " + room);
    check(!r.registered, "a subscribe for " + room + " while registered");
    check(!disconnected, "a subscribe after disconnect");
    r.in_flight = id;
    ++r.broker_subscribes;
  }
  void broker_unsubscribe(const std::string& room) override {
    Room& r = rooms[room];
    check(r.registered, "an unsubscribe of " + room + " with nothing registered");
    check(!r.joined, "an unsubscribe of " + room + " while joined");
    r.registered = false;
    ++r.unregistrations;
  }
  void join_hub(const std::string& room) override {
    Room& r = rooms[room];
    // The ordering contract: a session joins exactly when its subscribe's
    // (successful) answer runs.
    check(answering_ == room && answer_ok_, "join of " + room + " outside its answer");
    check(!r.joined, "joined " + room + " twice");
    check(r.registered, "joined " + room + " unregistered");
    r.joined = true;
    r.seen = r.top;  // the answer's result covers offsets up to top
  }
  void leave_hub(const std::string& room) override {
    Room& r = rooms[room];
    check(r.joined, "left " + room + " not joined");
    r.joined = false;
  }
  void reply_subscribed(std::uint32_t id, const std::string& room) override {
    check(answering_ == room && answer_ok_, "subscribe reply outside its answer");
    record(id, room, {id, Kind::subscribed});
  }
  void reply_broker_error(std::uint32_t id, const std::string& room) override {
    check(answering_ == room && !answer_ok_, "broker error reply outside its answer");
    record(id, room, {id, Kind::broker_error});
  }
  void reply_unsubscribed(std::uint32_t id, const std::string& room) override {
    record(id, room, {id, Kind::unsubscribed});
  }
  void push_unsubscribed(std::uint32_t id, const std::string& room,
                         protocol::UnsubscribeCode code) override {
    check(command(id).server, "a push for a command of the client's");
    check(code == kServerCode, "a push with another code");
    check(!rooms[room].joined && !rooms[room].registered, "a push before the room was left");
    record(id, room, {id, Kind::pushed});
  }
  void reply_error(std::uint32_t id, const std::string& /*room*/, ErrorCode code,
                   std::string message) override {
    const std::string& room = command(id).room;
    if (code == ErrorCode::limit_exceeded &&
        message.find("max_pending_per_room") != std::string::npos) {
      // Refused at once, on arrival, when the room's queue is full.
      check(in_command_ == id, "a queue-limit refusal after arrival");
      check(table.queued(room) == max_pending_, "a queue-limit refusal below the limit");
    }
    if (code == ErrorCode::limit_exceeded &&
        message.find("client.max_subscriptions") != std::string::npos) {
      check(pending_or_active() == max_subscriptions_, "a max_subscriptions refusal below it");
    }
    record(id, room, {id, Kind::error, code, std::move(message)});
  }

  // --- what was seen ---

  struct Room {
    std::optional<std::uint32_t> in_flight;  // not orphaned ones only until disconnect
    bool registered = false;
    bool joined = false;
    std::uint64_t top = 0, seen = 0, delivered = 0;
    int broker_subscribes = 0, registrations = 0, unregistrations = 0;
  };

  SubscriptionTable table;
  std::map<std::string, Room> rooms;
  std::vector<Command> commands;
  std::map<std::uint32_t, std::vector<Reply>> replies;      // by command id
  std::map<std::string, std::vector<std::uint32_t>> order;  // reply ids per room, in reply order
  std::map<std::string, std::vector<bool>> outcomes;        // answers before disconnect, per room
  std::vector<std::pair<std::string, bool>> orphan_answers;
  bool disconnected = false;
  std::string failure;  // the first broken rule
  std::string trace;

  const Command& command(std::uint32_t id) const {
    return commands.at(static_cast<std::size_t>(id - 1));
  }
  void check(bool ok, const std::string& what) {
    if (!ok && failure.empty()) failure = what;
  }
  [[nodiscard]] std::uint32_t pending_or_active() const {
    std::uint32_t n = 0;
    for (const auto& [name, r] : rooms) {
      if ((r.in_flight && !disconnected) || r.joined) ++n;
    }
    return n;
  }

 private:
  void record(std::uint32_t id, const std::string& room, Reply reply) {
    check(command(id).room == room, "a reply for the wrong room");
    log("  reply " + std::to_string(id) + " " + std::to_string(static_cast<int>(reply.kind)) +
        (reply.kind == Kind::error ? " " + std::to_string(static_cast<int>(reply.code)) : ""));
    const bool queue_refusal = reply.kind == Kind::error &&
                               reply.message.find("max_pending_per_room") != std::string::npos;
    if (!queue_refusal) order[room].push_back(id);
    replies[id].push_back(std::move(reply));
  }
  void check_count() {
    if (!disconnected) {
      check(table.counted() == pending_or_active(), "counted() is not pending + active");
      check(table.counted() <= max_subscriptions_, "over max_subscriptions");
    }
  }
  void log(const std::string& line) { trace += line + "\n"; }

  std::uint32_t max_subscriptions_;
  std::uint32_t max_pending_;
  std::uint32_t next_id_ = 1;
  std::uint32_t in_command_ = 0;
  std::optional<std::string> answering_;
  bool answer_ok_ = false;
};

// Everything settles: answers the broker still owes, successes unless
// `errors`.
void settle(Harness& h, bool errors = false) {
  for (auto rooms = h.in_flight(); !rooms.empty(); rooms = h.in_flight()) {
    h.answer(rooms.front(), !errors);
  }
}

// The sequential model: each room's commands in order, each subscribe that
// reaches the broker taking the room's next answer. Checks every reply, the
// order, the final state and the broker's balance; returns what broke.
std::string check_against_model(const Harness& h) {
  if (!h.failure.empty()) return h.failure;
  std::map<std::string, std::vector<Command>> per_room;
  for (const Command& c : h.commands) per_room[c.room].push_back(c);
  for (const auto& [room, cmds] : per_room) {
    bool active = false;
    std::size_t next_outcome = 0;
    const auto& outcomes = h.outcomes.count(room) ? h.outcomes.at(room) : std::vector<bool>{};
    bool cut = false;  // disconnected with this room's remaining commands unanswered
    for (const Command& c : cmds) {
      auto it = h.replies.find(c.id);
      const std::size_t n = it == h.replies.end() ? 0 : it->second.size();
      const std::string at = "command " + std::to_string(c.id) + " (" +
                             (c.server      ? "server unsubscribe "
                              : c.subscribe ? "subscribe "
                                            : "unsubscribe ") +
                             room + "): ";
      if (cut) {
        // Only a queue-limit refusal, answered on arrival, has a reply here.
        if (n != 0 &&
            it->second.front().message.find("max_pending_per_room") == std::string::npos) {
          return at + "answered after the room's commands were cut by disconnect";
        }
        continue;
      }
      if (c.server) {
        // Pushed exactly when the room is subscribed at its turn.
        if (n > 1) return at + "pushed " + std::to_string(n) + " times";
        if (active && n == 0) {
          if (h.disconnected) {
            cut = true;  // the disconnect came first
            continue;
          }
          return at + "not pushed to a subscribed room";
        }
        if (!active && n != 0) return at + "pushed to a room not subscribed";
        if (n == 1 && it->second.front().kind != Kind::pushed) return at + "answered, not pushed";
        active = false;
        continue;
      }
      if (n == 0) {
        // Only a disconnect leaves commands unanswered: the subscribe in
        // flight at that moment and everything queued behind it.
        if (!h.disconnected) return at + "never answered";
        if (!c.subscribe || active || next_outcome != outcomes.size()) {
          return at + "unanswered, but not the subscribe in flight at disconnect";
        }
        cut = true;
        continue;
      }
      if (n != 1) return at + "answered " + std::to_string(n) + " times";
      const Reply& r = it->second.front();
      if (r.kind == Kind::error && r.code == ErrorCode::limit_exceeded) {
        if (r.message.find("max_pending_per_room") != std::string::npos) continue;  // no-op
        if (r.message.find("client.max_subscriptions") != std::string::npos) {
          if (!c.subscribe || active) return at + "max_subscriptions refusal in the wrong state";
          continue;
        }
      }
      if (c.subscribe && active) {
        if (r.kind != Kind::error || r.code != ErrorCode::already_subscribed) {
          return at + "expected 105";
        }
      } else if (c.subscribe) {
        if (next_outcome >= outcomes.size()) return at + "answered without a broker answer";
        const bool ok = outcomes[next_outcome++];
        if (r.kind != (ok ? Kind::subscribed : Kind::broker_error)) {
          return at + "expected " + (ok ? "the result" : "the broker's error");
        }
        active = ok;
      } else if (active) {
        if (r.kind != Kind::unsubscribed) return at + "expected {}";
        active = false;
      } else if (r.kind != Kind::error || r.code != ErrorCode::not_subscribed) {
        return at + "expected 110";
      }
    }
    if (next_outcome != outcomes.size()) return room + ": broker answers left over";
    const Harness::Room& sim = h.rooms.count(room) ? h.rooms.at(room) : Harness::Room{};
    // The final state is what the last commands asked for.
    const bool want = active && !h.disconnected;
    if (sim.joined != want) return room + ": joined is " + std::to_string(sim.joined);
    if (h.table.is_active(room) != want) return room + ": table disagrees on the final state";
    // Every registration undone exactly once, unless the room ends subscribed.
    if (sim.registered != want) return room + ": registered is " + std::to_string(sim.registered);
    if (sim.unregistrations != sim.registrations - (want ? 1 : 0)) {
      return room + ": " + std::to_string(sim.registrations) + " registrations, " +
             std::to_string(sim.unregistrations) + " undone";
    }
    if (sim.in_flight) return room + ": a subscribe still in flight";
  }
  // Replies of one room in command order (a queue-limit refusal, answered on
  // arrival, is left out of `order`).
  for (const auto& [room, ids] : h.order) {
    if (!std::is_sorted(ids.begin(), ids.end())) return room + ": replies out of command order";
  }
  if (!h.disconnected && h.table.counted() != h.pending_or_active()) return "counted() drifted";
  return "";
}

// --- the probes that found the bugs ---

TEST(SubscriptionTable, SubscribeThenUnsubscribeInOneFrameAnswersBoth) {
  Harness h(128, 16);
  const auto s = h.subscribe("a");
  const auto u = h.unsubscribe("a");
  EXPECT_TRUE(h.replies.empty()) << "the unsubscribe overtook the subscribe";
  h.answer("a", true);
  ASSERT_EQ(h.replies[s].size(), 1u);
  EXPECT_EQ(h.replies[s][0].kind, Kind::subscribed);
  ASSERT_EQ(h.replies[u].size(), 1u);
  EXPECT_EQ(h.replies[u][0].kind, Kind::unsubscribed);
  EXPECT_EQ(h.order["a"], (std::vector<std::uint32_t>{s, u}));
  EXPECT_FALSE(h.rooms["a"].joined);
  EXPECT_FALSE(h.rooms["a"].registered);
  EXPECT_EQ(h.rooms["a"].unregistrations, 1);
  EXPECT_EQ(h.table.counted(), 0u);
  EXPECT_EQ(check_against_model(h), "");
}

// Centrifugo's protocol: unsubscribing from a room the client is not in
// succeeds, whether it never was (none) or its subscribe was refused while
// the unsubscribe waited behind it; an active room is left as always.
TEST(SubscriptionTable, AbsentUnsubscribeSucceedsWhenTheProtocolSaysSo) {
  Harness h(128, 16, SubscriptionTable::Absent::succeeds);
  const auto never = h.unsubscribe("a");
  ASSERT_EQ(h.replies[never].size(), 1u);
  EXPECT_EQ(h.replies[never][0].kind, Kind::unsubscribed);
  const auto s = h.subscribe("b");
  const auto u = h.unsubscribe("b");
  h.answer("b", false);
  EXPECT_EQ(h.replies[s][0].kind, Kind::broker_error);
  ASSERT_EQ(h.replies[u].size(), 1u);
  EXPECT_EQ(h.replies[u][0].kind, Kind::unsubscribed);
  EXPECT_EQ(h.rooms["b"].unregistrations, 0);  // nothing was registered
  const auto s2 = h.subscribe("c");
  h.answer("c", true);
  const auto u2 = h.unsubscribe("c");
  EXPECT_EQ(h.replies[s2][0].kind, Kind::subscribed);
  EXPECT_EQ(h.replies[u2][0].kind, Kind::unsubscribed);
  EXPECT_EQ(h.rooms["c"].unregistrations, 1);
  EXPECT_EQ(h.table.counted(), 0u);
  EXPECT_EQ(h.failure, "");
}

TEST(SubscriptionTable, SubscribeUnsubscribeSubscribeEndsSubscribed) {
  Harness h(128, 16);
  const auto s1 = h.subscribe("a");
  const auto u = h.unsubscribe("a");
  const auto s2 = h.subscribe("a");
  h.answer("a", true);
  // The unsubscribe undid the first registration; the second subscribe is
  // with the broker.
  EXPECT_EQ(h.order["a"], (std::vector<std::uint32_t>{s1, u}));
  ASSERT_TRUE(h.rooms["a"].in_flight);
  h.answer("a", true);
  EXPECT_EQ(h.order["a"], (std::vector<std::uint32_t>{s1, u, s2}));
  EXPECT_EQ(h.replies[s2].at(0).kind, Kind::subscribed);
  EXPECT_TRUE(h.rooms["a"].joined);
  EXPECT_TRUE(h.table.is_active("a"));
  h.publish("a");
  EXPECT_EQ(h.rooms["a"].delivered, 1u);
  EXPECT_EQ(check_against_model(h), "");
}

TEST(SubscriptionTable, UnsubscribeSubscribeUnsubscribeAfterActiveAnswersTheMiddle) {
  Harness h(128, 16);
  h.subscribe("a");
  h.answer("a", true);
  const auto u1 = h.unsubscribe("a");
  const auto s = h.subscribe("a");
  const auto u2 = h.unsubscribe("a");
  EXPECT_EQ(h.replies[u1].at(0).kind, Kind::unsubscribed);
  h.answer("a", true);
  EXPECT_EQ(h.replies[s].at(0).kind, Kind::subscribed);
  EXPECT_EQ(h.replies[u2].at(0).kind, Kind::unsubscribed);
  EXPECT_FALSE(h.rooms["a"].joined);
  EXPECT_EQ(h.rooms["a"].registrations, 2);
  EXPECT_EQ(h.rooms["a"].unregistrations, 2);
  h.publish("a");
  EXPECT_EQ(h.rooms["a"].delivered, 0u);
  EXPECT_EQ(check_against_model(h), "");
}

// --- the other rules, one case each ---

TEST(SubscriptionTable, ABrokerErrorIsRepliedAndTheQueueGoesOn) {
  Harness h(128, 16);
  const auto s1 = h.subscribe("a");
  const auto s2 = h.subscribe("a");
  const auto u = h.unsubscribe("a");
  h.answer("a", false);
  EXPECT_EQ(h.replies[s1].at(0).kind, Kind::broker_error);
  EXPECT_TRUE(h.replies[s2].empty());  // the second subscribe went to the broker
  ASSERT_TRUE(h.rooms["a"].in_flight);
  h.answer("a", true);
  EXPECT_EQ(h.replies[s2].at(0).kind, Kind::subscribed);
  EXPECT_EQ(h.replies[u].at(0).kind, Kind::unsubscribed);
  EXPECT_EQ(check_against_model(h), "");
}

TEST(SubscriptionTable, ASecondSubscribeWaitsThenGets105) {
  Harness h(128, 16);
  h.subscribe("a");
  const auto s2 = h.subscribe("a");
  EXPECT_TRUE(h.replies[s2].empty());
  h.answer("a", true);
  ASSERT_EQ(h.replies[s2].size(), 1u);
  EXPECT_EQ(h.replies[s2][0].code, ErrorCode::already_subscribed);
  EXPECT_EQ(check_against_model(h), "");
}

TEST(SubscriptionTable, TheQueueIsBoundedAndTheRefusalNamesTheLimit) {
  Harness h(128, 2);
  h.subscribe("a");
  h.unsubscribe("a");
  h.subscribe("a");
  const auto over = h.unsubscribe("a");
  ASSERT_EQ(h.replies[over].size(), 1u) << "refused at once";
  EXPECT_EQ(h.replies[over][0].code, ErrorCode::limit_exceeded);
  EXPECT_NE(h.replies[over][0].message.find("client.max_pending_per_room (2)"), std::string::npos)
      << h.replies[over][0].message;
  settle(h);
  EXPECT_TRUE(h.rooms["a"].joined);  // the refused unsubscribe did nothing
  EXPECT_EQ(check_against_model(h), "");
}

TEST(SubscriptionTable, MaxSubscriptionsCountsPendingRooms) {
  Harness h(2, 16);
  h.subscribe("a");
  h.subscribe("b");
  const auto c = h.subscribe("c");  // a and b are only pending
  ASSERT_EQ(h.replies[c].size(), 1u);
  EXPECT_EQ(h.replies[c][0].code, ErrorCode::limit_exceeded);
  EXPECT_NE(h.replies[c][0].message.find("client.max_subscriptions (2)"), std::string::npos);
  h.answer("a", false);  // a failed: its slot is free again
  EXPECT_EQ(h.table.counted(), 1u);
  const auto c2 = h.subscribe("c");
  EXPECT_TRUE(h.replies[c2].empty());
  settle(h);
  EXPECT_EQ(h.table.counted(), 2u);
  EXPECT_EQ(check_against_model(h), "");
}

TEST(SubscriptionTable, DisconnectWhileInFlightUndoesTheLateAnswerSilently) {
  Harness h(128, 16);
  h.subscribe("a");
  h.answer("a", true);
  const auto sb = h.subscribe("b");
  const auto ub = h.unsubscribe("b");
  h.subscribe("c");
  h.disconnect();
  EXPECT_FALSE(h.rooms["a"].joined);
  EXPECT_FALSE(h.rooms["a"].registered);  // left and unsubscribed at once
  const std::size_t replies_before = h.replies.size();
  h.answer("b", true);   // registered: undone
  h.answer("c", false);  // nothing registered: nothing to undo
  EXPECT_EQ(h.replies.size(), replies_before) << "a reply after disconnect";
  EXPECT_TRUE(h.replies[sb].empty());
  EXPECT_TRUE(h.replies[ub].empty());
  EXPECT_FALSE(h.rooms["b"].registered);
  EXPECT_EQ(h.rooms["b"].unregistrations, 1);
  EXPECT_EQ(h.rooms["c"].unregistrations, 0);
  h.subscribe("d");  // ignored: nobody to answer
  EXPECT_EQ(h.rooms["d"].broker_subscribes, 0);
  EXPECT_EQ(check_against_model(h), "");
}

// A server unsubscribe pushes only to a subscribed room, after the reply of
// a subscribe it waited behind; a refused subscribe gets no push; server
// unsubscribes do not use up max_pending_per_room, and two in a row make one.
TEST(SubscriptionTable, AServerUnsubscribePushesOnlyToASubscribedRoom) {
  Harness h(128, 1);
  const auto none = h.server_unsubscribe("a");
  EXPECT_TRUE(h.replies[none].empty());

  const auto s = h.subscribe("b");
  const auto push = h.server_unsubscribe("b");
  const auto again = h.server_unsubscribe("b");
  const auto u = h.unsubscribe("b");  // the one queued command P = 1 allows
  EXPECT_EQ(h.table.queued("b"), 1u);
  h.answer("b", true);
  EXPECT_EQ(h.order["b"], (std::vector<std::uint32_t>{s, push, u}));
  EXPECT_EQ(h.replies[push][0].kind, Kind::pushed);
  EXPECT_TRUE(h.replies[again].empty());
  EXPECT_EQ(h.replies[u][0].code, ErrorCode::not_subscribed);
  EXPECT_FALSE(h.rooms["b"].registered);

  h.subscribe("c");
  const auto refused = h.server_unsubscribe("c");
  h.answer("c", false);
  EXPECT_TRUE(h.replies[refused].empty());

  h.subscribe("d");
  h.answer("d", true);
  const auto now = h.server_unsubscribe("d");
  ASSERT_EQ(h.replies[now].size(), 1u);
  EXPECT_FALSE(h.table.is_active("d"));
  EXPECT_EQ(h.table.counted(), 0u);
  EXPECT_EQ(check_against_model(h), "");
}

// --- random interleavings ---

struct Params {
  std::uint32_t max_subscriptions;
  std::uint32_t max_pending;
  int error_percent;
  bool may_disconnect;
};

// One random sequence: `steps` events, then everything settles, then a
// publication to every room.
std::string run_random(std::mt19937& rng, const Params& p, int steps, std::string* trace) {
  static const std::vector<std::string> kRooms = {"r0", "r1", "r2"};
  Harness h(p.max_subscriptions, p.max_pending);
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  for (int i = 0; i < steps && h.failure.empty(); ++i) {
    const int roll = pick(100);
    const std::string& room = kRooms[static_cast<std::size_t>(pick(3))];
    if (roll < 30) {
      if (!h.disconnected) h.subscribe(room);
    } else if (roll < 44) {
      if (!h.disconnected) h.unsubscribe(room);
    } else if (roll < 52) {
      if (!h.disconnected) h.server_unsubscribe(room);
    } else if (roll < 80) {
      auto in_flight = h.in_flight();
      if (!in_flight.empty()) {
        h.answer(in_flight[static_cast<std::size_t>(pick(static_cast<int>(in_flight.size())))],
                 pick(100) >= p.error_percent);
      }
    } else if (roll < 97) {
      h.publish(room);
    } else if (p.may_disconnect && !h.disconnected) {
      h.disconnect();
    }
  }
  // Settle, still with errors sometimes: a failed subscribe replays its queue.
  for (auto in_flight = h.in_flight(); !in_flight.empty() && h.failure.empty();
       in_flight = h.in_flight()) {
    h.answer(in_flight[static_cast<std::size_t>(pick(static_cast<int>(in_flight.size())))],
             pick(100) >= p.error_percent);
  }
  std::string why = check_against_model(h);
  if (why.empty()) {
    // A later publication reaches the connection exactly when the final
    // state says it is subscribed.
    for (const std::string& room : kRooms) {
      const std::uint64_t before = h.rooms[room].delivered;
      h.publish(room);
      const bool delivered = h.rooms[room].delivered == before + 1;
      if (delivered != (h.table.is_active(room) && !h.disconnected)) {
        why = room + ": a later publication was " + (delivered ? "" : "not ") + "delivered";
      }
    }
    if (why.empty()) why = h.failure;
  }
  if (!why.empty() && trace) *trace = h.trace;
  return why;
}

void PrintTo(const Params& p, std::ostream* os) {
  *os << "max_subscriptions " << p.max_subscriptions << ", max_pending " << p.max_pending << ", "
      << p.error_percent << "% errors" << (p.may_disconnect ? ", disconnects" : "");
}

class SubscriptionTableRandom : public ::testing::TestWithParam<Params> {};

TEST_P(SubscriptionTableRandom, AgreesWithTheSequentialModel) {
  const Params& p = GetParam();
  for (std::uint32_t seed : {1u, 2u, 3u, 4u, 5u}) {
    std::mt19937 rng(seed * 7919u + p.max_pending * 31u + p.max_subscriptions);
    for (int n = 0; n < 2000; ++n) {
      std::string trace;
      const int steps = 5 + static_cast<int>(rng() % 60);
      std::string why = run_random(rng, p, steps, &trace);
      ASSERT_EQ(why, "") << "seed " << seed << ", sequence " << n << ":\n" << trace;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Limits, SubscriptionTableRandom,
                         ::testing::Values(Params{128, 16, 15, false}, Params{128, 16, 15, true},
                                           Params{128, 1, 10, true}, Params{128, 2, 30, true},
                                           Params{2, 3, 15, true}, Params{1, 16, 50, false},
                                           Params{3, 4, 0, true}),
                         [](const ::testing::TestParamInfo<Params>& param_info) {
                           std::ostringstream name;
                           name << "subs" << param_info.param.max_subscriptions << "_pending"
                                << param_info.param.max_pending << "_err"
                                << param_info.param.error_percent
                                << (param_info.param.may_disconnect ? "_dc" : "");
                           return name.str();
                         });

}  // namespace
}  // namespace herald::gateway::client
