// The subscription probes of docs/protocol.md ("Commands on one room"), as
// real WebSocket clients against running heraldd processes. The same probes
// run against one embedded-broker heraldd (tests/gateway/ws_subscription_test.cpp)
// and against two cluster nodes over a real redis-server
// (tests/cluster/subscription_order_test.cpp): a subscriber on one port, a
// publisher on another (or the same).
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "gateway/ws_common.hpp"
#include "support/eventually.hpp"
#include "support/http_client.hpp"

namespace herald::test {

inline std::string subscribe_cmd(std::uint32_t id, const std::string& room) {
  return R"({"id":)" + std::to_string(id) + R"(,"subscribe":{"room":")" + room + R"("}})";
}
inline std::string unsubscribe_cmd(std::uint32_t id, const std::string& room) {
  return R"({"id":)" + std::to_string(id) + R"(,"unsubscribe":{"room":")" + room + R"("}})";
}

// What a client received while waiting for the replies to some commands.
struct Received {
  std::vector<std::uint32_t> order;                         // reply ids, in arrival order
  std::map<std::uint32_t, std::vector<std::string>> by_id;  // every reply, by id
  std::vector<std::string> pubs;                            // pub pushes meanwhile
};

// Reads `c` until every id in `ids` has a reply, then pings (`ping_id`) and
// reads up to the pong, so a duplicate reply sent with the others would be
// caught too.
inline Received read_replies(WsClient& c, const std::set<std::uint32_t>& ids,
                             std::uint32_t ping_id) {
  Received r;
  std::set<std::uint32_t> missing = ids;
  bool pinged = false;
  for (;;) {
    if (missing.empty() && !pinged) {
      c.send(R"({"id":)" + std::to_string(ping_id) + R"(,"ping":{}})");
      pinged = true;
    }
    auto m = c.next();
    if (!m) {
      ADD_FAILURE() << missing.size() << " of " << ids.size() << " replies never came, first id "
                    << (missing.empty() ? 0 : *missing.begin());
      return r;
    }
    if (json_has(*m, "/pub")) r.pubs.push_back(*m);
    auto id = json_uint(*m, "/id");
    if (!id) continue;  // join/leave pushes
    if (*id == ping_id && pinged) return r;
    r.order.push_back(static_cast<std::uint32_t>(*id));
    r.by_id[static_cast<std::uint32_t>(*id)].push_back(*m);
    missing.erase(static_cast<std::uint32_t>(*id));
  }
}

// Every id answered exactly once, in the order given.
inline void expect_once_in_order(const Received& r, const std::vector<std::uint32_t>& ids) {
  for (std::uint32_t id : ids) {
    auto it = r.by_id.find(id);
    EXPECT_EQ(it == r.by_id.end() ? 0u : it->second.size(), 1u) << "replies to command " << id;
  }
  EXPECT_EQ(r.order, ids) << "replies out of command order";
}

inline bool is_subscribe_result(const std::vector<std::string>& replies) {
  return replies.size() == 1 && json_has(replies[0], "/result/epoch") &&
         json_has(replies[0], "/result/offset");
}
inline bool is_empty_result(const std::vector<std::string>& replies) {
  return replies.size() == 1 && json_raw(replies[0], "/result") == "{}";
}

// Whether the metric `series` of the node on `port` comes to `want`.
inline bool eventually_metric(std::uint16_t port, const std::string& series, double want) {
  double got = 0;
  if (eventually([&] {
        got = metric_value(http_get("127.0.0.1", port, "/metrics").body, series);
        return got == want;
      }))
    return true;
  ADD_FAILURE() << series << " stayed at " << got << ", expected " << want;
  return false;
}

// A subscriber (on sub_port) and a publisher (on pub_port). The subscriber
// is subscribed to `control`, whose publications bound the wait for one
// that should not arrive. The probes below run on one; the caller keeps it,
// and so the subscriber's connection, to check more after them.
class SubscriptionProbe {
 public:
  SubscriptionProbe(std::uint16_t sub_port, std::uint16_t pub_port, std::string control = "ctl")
      : sub_(connect_as(sub_port, "probe-sub")),
        pub_(connect_as(pub_port, "probe-pub")),
        control_(std::move(control)) {
    auto r = subscribe(*sub_, 2, control_);
    EXPECT_TRUE(json_has(r, "/result")) << r;
  }

  WsClient& sub() { return *sub_; }

  // Sends `lines` as ONE WebSocket frame and reads the replies to `ids`.
  Received send_frame(const std::vector<std::string>& lines, const std::set<std::uint32_t>& ids) {
    std::string frame;
    for (const std::string& l : lines) frame += l + "\n";
    sub_->send(frame);
    return read_replies(*sub_, ids, next_id_++);
  }

  // Publishes once to `room`, then once to the control room, and counts the
  // publications of `room` the subscriber receives by the control's one
  // (and 300 ms after it).
  int deliveries_of_one_publication(const std::string& room) {
    const std::uint32_t p1 = next_id_++, p2 = next_id_++;
    auto r1 = publish(*pub_, p1, room, R"("probe")");
    EXPECT_TRUE(json_has(r1, "/result/offset")) << r1;
    auto r2 = publish(*pub_, p2, control_, R"("control")");
    EXPECT_TRUE(json_has(r2, "/result/offset")) << r2;
    int count = 0;
    bool control_seen = false;
    auto until = std::chrono::milliseconds(5000);
    while (auto m = sub_->next(until)) {
      if (json_str(*m, "/pub/room") == room) ++count;
      if (json_str(*m, "/pub/room") == control_ && !control_seen) {
        control_seen = true;
        until = std::chrono::milliseconds(300);
      }
    }
    EXPECT_TRUE(control_seen) << "the control room's publication never arrived";
    return count;
  }

  // Whether presence_stats of `room` comes to count `clients` (the broker's
  // registrations; it may lag the replies by a hop).
  bool presence_becomes(const std::string& room, std::uint64_t clients) {
    std::optional<std::uint64_t> got;
    for (int i = 0; i < 250; ++i) {
      const std::uint32_t id = next_id_++;
      auto r = request(
          *pub_, id,
          R"({"id":)" + std::to_string(id) + R"(,"presence_stats":{"room":")" + room + R"("}})");
      got = json_uint(r.value_or(""), "/result/clients");
      if (got == clients) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    ADD_FAILURE() << "presence_stats of " << room << " stayed at "
                  << (got ? std::to_string(*got) : "no answer") << ", expected " << clients;
    return false;
  }

 private:
  std::unique_ptr<WsClient> sub_;
  std::unique_ptr<WsClient> pub_;
  std::string control_;
  std::uint32_t next_id_ = 1000;
};

// Probe 1: subscribe and unsubscribe of a room in one frame. Both are
// answered, in order; the client ends unsubscribed.
inline void probe_subscribe_unsubscribe(SubscriptionProbe& p) {
  Received r = p.send_frame({subscribe_cmd(10, "probe1"), unsubscribe_cmd(11, "probe1")}, {10, 11});
  expect_once_in_order(r, {10, 11});
  EXPECT_TRUE(is_subscribe_result(r.by_id[10]));
  EXPECT_TRUE(is_empty_result(r.by_id[11]));
  EXPECT_EQ(p.deliveries_of_one_publication("probe1"), 0);
  EXPECT_TRUE(p.presence_becomes("probe1", 0));
}

// Probe 2: subscribe, unsubscribe, subscribe in one frame. All three are
// answered, in order (no 105); the client ends subscribed.
inline void probe_subscribe_unsubscribe_subscribe(SubscriptionProbe& p) {
  Received r = p.send_frame(
      {subscribe_cmd(10, "probe2"), unsubscribe_cmd(11, "probe2"), subscribe_cmd(12, "probe2")},
      {10, 11, 12});
  expect_once_in_order(r, {10, 11, 12});
  EXPECT_TRUE(is_subscribe_result(r.by_id[10]));
  EXPECT_TRUE(is_empty_result(r.by_id[11]));
  EXPECT_TRUE(is_subscribe_result(r.by_id[12])) << r.by_id[12].front();
  EXPECT_EQ(p.deliveries_of_one_publication("probe2"), 1);
  EXPECT_TRUE(p.presence_becomes("probe2", 1));
}

// Probe 3: with an active subscription, unsubscribe, subscribe, unsubscribe
// in one frame. All three answered, in order; the client ends unsubscribed.
inline void probe_active_unsubscribe_subscribe_unsubscribe(SubscriptionProbe& p) {
  auto first = subscribe(p.sub(), 10, "probe3");
  ASSERT_TRUE(json_has(first, "/result/epoch")) << first;
  Received r = p.send_frame(
      {unsubscribe_cmd(11, "probe3"), subscribe_cmd(12, "probe3"), unsubscribe_cmd(13, "probe3")},
      {11, 12, 13});
  expect_once_in_order(r, {11, 12, 13});
  EXPECT_TRUE(is_empty_result(r.by_id[11]));
  EXPECT_TRUE(is_subscribe_result(r.by_id[12]));
  EXPECT_TRUE(is_empty_result(r.by_id[13]));
  EXPECT_EQ(p.deliveries_of_one_publication("probe3"), 0);
  EXPECT_TRUE(p.presence_becomes("probe3", 0));
}

// A burst: `pairs` fresh rooms, each subscribed and unsubscribed in the same
// frame (2 x pairs commands). Every command answered once, each room's two
// in order; nothing stays subscribed (the metrics of the subscriber's node,
// on `metrics_port`) or registered. The subscriber's node needs
// client.max_subscriptions >= pairs and client.command_burst > 2 x pairs
// (the frame is 2 x pairs commands, after the control room's subscribe).
inline void probe_burst_over_fresh_rooms(SubscriptionProbe& p, std::uint16_t metrics_port,
                                         int pairs = 500) {
  std::vector<std::string> lines;
  std::set<std::uint32_t> ids;
  for (int i = 0; i < pairs; ++i) {
    const std::string room = "burst-" + std::to_string(i);
    const auto s = static_cast<std::uint32_t>(10 + 2 * i);
    lines.push_back(subscribe_cmd(s, room));
    lines.push_back(unsubscribe_cmd(s + 1, room));
    ids.insert({s, s + 1});
  }
  Received r = p.send_frame(lines, ids);
  int answered_once = 0, in_order = 0, named = 0;
  std::map<std::uint32_t, std::size_t> position;
  for (std::size_t i = 0; i < r.order.size(); ++i) position.emplace(r.order[i], i);
  for (int i = 0; i < pairs; ++i) {
    const auto s = static_cast<std::uint32_t>(10 + 2 * i);
    if (is_subscribe_result(r.by_id[s]) && is_empty_result(r.by_id[s + 1])) {
      ++answered_once;
    } else if (named++ < 5) {  // name the first few failures only
      ADD_FAILURE() << "room burst-" << i << ": " << r.by_id[s].size() << " replies to subscribe, "
                    << r.by_id[s + 1].size() << " to unsubscribe"
                    << (r.by_id[s].empty() ? "" : ": " + r.by_id[s].front());
    }
    if (position.count(s) && position.count(s + 1) && position[s] < position[s + 1]) ++in_order;
  }
  EXPECT_EQ(r.order.size(), ids.size()) << "replies received";
  EXPECT_EQ(answered_once, pairs) << "rooms whose subscribe and unsubscribe were answered once";
  EXPECT_EQ(in_order, pairs) << "rooms answered in command order";
  // Nothing left joined on the node, and the broker undid every
  // registration (sampled: the first, a middle and the last room).
  EXPECT_TRUE(eventually_metric(metrics_port, "herald_subscriptions", 1));  // the control room
  for (int i : {0, pairs / 2, pairs - 1}) {
    EXPECT_TRUE(p.presence_becomes("burst-" + std::to_string(i), 0));
  }
}

// A client that subscribes to `rooms` fresh rooms in one frame (each also
// unsubscribed and subscribed again, so commands wait behind the subscribes)
// and disconnects at once, while the subscribes are in flight: whatever the
// broker answers late is undone. Once its node has closed it, nothing is
// left registered with the broker (presence) nor joined on the node (port
// `metrics_port`).
inline void probe_disconnect_while_subscribing(SubscriptionProbe& p, std::uint16_t sub_port,
                                               std::uint16_t metrics_port, int rooms = 50) {
  auto metric = [&](const char* series) {
    return metric_value(http_get("127.0.0.1", metrics_port, "/metrics").body, series);
  };
  const double connections = metric("herald_ws_connections");
  const double subscriptions = metric("herald_subscriptions");
  {
    auto doomed = connect_as(sub_port, "doomed");
    std::string frame;
    for (int i = 0; i < rooms; ++i) {
      const std::string room = "gone-" + std::to_string(i);
      const auto id = static_cast<std::uint32_t>(10 + 3 * i);
      frame += subscribe_cmd(id, room) + "\n" + unsubscribe_cmd(id + 1, room) + "\n" +
               subscribe_cmd(id + 2, room) + "\n";
    }
    doomed->send(frame);
  }  // closed at once
  EXPECT_TRUE(eventually_metric(metrics_port, "herald_ws_connections", connections));
  // Every room's registration undone first: each presence query goes
  // through the broker after that room's subscribes, so their late answers
  // have been sent by then; a late answer that joined the dead session would
  // leave the room's presence at 1 and the node's count above the baseline.
  for (int i = 0; i < rooms; ++i) {
    if (!p.presence_becomes("gone-" + std::to_string(i), 0)) break;  // one failure says it
  }
  EXPECT_TRUE(eventually_metric(metrics_port, "herald_subscriptions", subscriptions))
      << "herald_subscriptions stays at " << metric("herald_subscriptions");
}

}  // namespace herald::test
