// Rooms, commands and connections as budgets (limits/): each attack of the
// review, sent by real clients to a real heraldd, and what the server does
// about it. Memory is checked structurally (the rooms gauge, the cap), not
// by RSS; docs/benchmarks.md has the RSS figures and the command.
#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>

#include "subscription_probes.hpp"
#include "support/http_client.hpp"
#include "ws_common.hpp"

namespace herald::test {
namespace {

using ::testing::HasSubstr;

double metric(std::uint16_t port, const std::string& series) {
  return metric_value(http_get("127.0.0.1", port, "/metrics").body, series);
}

std::string history_cmd(std::uint32_t id, const std::string& room) {
  return R"({"id":)" + std::to_string(id) + R"(,"history":{"room":")" + room + R"("}})";
}

// Sends `lines` in one frame and returns the replies to ids first..first+n-1
// (n = lines.size()), by id.
std::map<std::uint64_t, std::string> send_and_collect(WsClient& c,
                                                      const std::vector<std::string>& lines,
                                                      std::uint64_t first) {
  std::string frame;
  for (const std::string& l : lines) frame += l + "\n";
  c.send(frame);
  std::map<std::uint64_t, std::string> replies;
  while (replies.size() < lines.size()) {
    auto m = c.next();
    if (!m) break;
    auto id = json_uint(*m, "/id");
    if (id && *id >= first && *id < first + lines.size()) replies.emplace(*id, *m);
  }
  EXPECT_EQ(replies.size(), lines.size()) << "replies received";
  return replies;
}

// The review's flood: subscribe and unsubscribe of fresh names, and history
// of fresh names, 2,000 of each from one connection. Before, every name
// left a room (with its history ring allocated up front) for history_ttl;
// now nothing is left once each command is answered.
TEST(RoomBudget, AFloodOfFreshRoomsLeavesNoRoomBehind) {
  // Room for the frames below: 250 rooms pending at once per frame.
  Daemon d({"--client.command_burst", "1000000", "--client.max_subscriptions", "1000"});
  auto c = connect_as(d.port, "flooder");
  const int kRooms = 2000;
  const int kPerFrame = 250;  // pairs per frame: a frame stays under client.max_message_bytes
  std::uint32_t id = 10;
  for (int base = 0; base < kRooms; base += kPerFrame) {
    std::vector<std::string> lines;
    const std::uint32_t first = id;
    for (int i = base; i < base + kPerFrame; ++i) {
      const std::string room = "fresh-" + std::to_string(i);
      lines.push_back(subscribe_cmd(id++, room));
      lines.push_back(unsubscribe_cmd(id++, room));
      lines.push_back(history_cmd(id++, "unknown-" + std::to_string(i)));
    }
    auto replies = send_and_collect(*c, lines, first);
    for (std::uint64_t r = first; r < id; r += 3) {
      EXPECT_TRUE(json_has(replies[r], "/result/epoch")) << replies[r];
      // A room that does not exist reads as an empty stream with no epoch.
      EXPECT_EQ(json_str(replies[r + 2], "/result/epoch"), "") << replies[r + 2];
      EXPECT_EQ(json_size(replies[r + 2], "/result/publications"), 0u);
    }
  }
  // The unsubscribes went to the broker without an answer; the rooms go as
  // they land.
  EXPECT_TRUE(eventually_metric(d.port, "herald_rooms", 0));
  subscribe(*c, id++, "kept");
  EXPECT_EQ(metric(d.port, "herald_rooms"), 1);
  expect_alive(*c, id++);
}

TEST(RoomBudget, TheCapRefusesTheNextRoomAndHistoryOpensNone) {
  Daemon d({"--rooms.max_rooms", "3", "--rooms.history_size", "1000000"});
  auto c = connect_as(d.port, "u");
  for (std::uint32_t i = 0; i < 3; ++i) {
    auto r = subscribe(*c, 10 + i, "room-" + std::to_string(i));
    EXPECT_TRUE(json_has(r, "/result/epoch")) << r;
  }
  EXPECT_EQ(metric(d.port, "herald_rooms"), 3);
  // At the cap: a subscribe or a publish that would open a fourth room.
  auto refused = request(*c, 20, subscribe_cmd(20, "room-3"));
  EXPECT_EQ(json_uint(refused.value_or(""), "/error/code"), 115u) << refused.value_or("");
  EXPECT_THAT(refused.value_or(""), HasSubstr("rooms.max_rooms"));
  auto pub = request(*c, 21, R"({"id":21,"publish":{"room":"room-4","data":1}})");
  EXPECT_EQ(json_uint(pub.value_or(""), "/error/code"), 115u) << pub.value_or("");
  // The server API's publish too (dev mode: no key), as a 503.
  const HttpReply api = api_post(d.port, "/api/publish", R"({"room":"room-5","data":1})");
  EXPECT_EQ(api.status, 503);
  EXPECT_THAT(api.body, HasSubstr("too_many_rooms"));
  // history and presence of rooms that do not exist open nothing, even with
  // the largest history_size (the ring was allocated up front: 32 MB each).
  std::vector<std::string> reads;
  for (std::uint32_t i = 0; i < 100; ++i) {
    reads.push_back(history_cmd(100 + 2 * i, "ghost-" + std::to_string(i)));
    reads.push_back(R"({"id":)" + std::to_string(101 + 2 * i) +
                    R"(,"presence_stats":{"room":"ghost-)" + std::to_string(i) + R"("}})");
  }
  auto replies = send_and_collect(*c, reads, 100);
  for (const auto& [rid, reply] : replies) EXPECT_TRUE(json_has(reply, "/result")) << reply;
  EXPECT_EQ(metric(d.port, "herald_rooms"), 3);
  EXPECT_EQ(metric(d.port, "herald_rooms_refused_total"), 3);
  // Rooms that exist go on: a publish in one is accepted.
  auto ok = publish(*c, 22, "room-0", "1");
  EXPECT_TRUE(json_has(ok, "/result/offset")) << ok;
  // Leaving an empty room frees it at once: the refused room fits now.
  auto left = request(*c, 23, unsubscribe_cmd(23, "room-1"));
  EXPECT_EQ(left, R"({"id":23,"result":{}})");
  EXPECT_TRUE(eventually_metric(d.port, "herald_rooms", 2));
  auto now_ok = subscribe(*c, 24, "room-3");
  EXPECT_TRUE(json_has(now_ok, "/result/epoch")) << now_ok;
}

// Freed at once must not cost recovery: the room comes back with the epoch
// it had, at offset 0, so a since from before recovers (nothing was missed).
TEST(RoomBudget, AnEmptyRoomFreedAndOpenedAgainKeepsItsEpoch) {
  Daemon d;
  auto c = connect_as(d.port, "u");
  auto first = subscribe(*c, 2, "quiet");
  auto epoch = json_str(first, "/result/epoch").value_or("");
  ASSERT_FALSE(epoch.empty()) << first;
  request(*c, 3, unsubscribe_cmd(3, "quiet"));
  EXPECT_TRUE(eventually_metric(d.port, "herald_rooms", 0));
  auto again = subscribe(*c, 4, "quiet", R"({"epoch":")" + epoch + R"(","offset":0})");
  EXPECT_EQ(json_str(again, "/result/epoch"), epoch) << again;
  EXPECT_EQ(json_bool(again, "/result/recovered"), true) << again;
}

TEST(CommandRate, CommandsOverTheRateGet111AndPublishKeepsItsOwnRate) {
  // A burst of 20, then 1 a second: 100 commands in one frame cannot all
  // pass (the frame would have to take 80 s to be read).
  Daemon d({"--client.command_rate", "1", "--client.command_burst", "20"});
  auto c = connect_as(d.port, "chatty");
  std::vector<std::string> lines;
  for (std::uint32_t i = 0; i < 100; ++i) lines.push_back(history_cmd(10 + i, "r"));
  auto replies = send_and_collect(*c, lines, 10);
  int answered = 0, limited = 0;
  for (const auto& [rid, reply] : replies) {
    if (json_has(reply, "/result")) ++answered;
    if (json_uint(reply, "/error/code") == 111u) {
      ++limited;
      EXPECT_THAT(reply, HasSubstr("client.command_rate"));
    }
  }
  EXPECT_EQ(answered + limited, 100);
  EXPECT_GE(answered, 20);  // the burst
  EXPECT_GE(limited, 1);
  EXPECT_LT(answered, 100);
  // publish is not a command of command_rate: it has publish_rate.
  auto p = publish(*c, 200, "r", "1");
  EXPECT_TRUE(json_has(p, "/result/offset")) << p;
}

// One client churning subscribe/unsubscribe in a room with join_leave:
// each cycle was a join and a leave to every member. Now the room sends at
// most join_leave_rate of them a second; every one not sent is counted.
TEST(JoinLeave, AChurningClientCannotMultiplyItsCommandsByTheRoomsSize) {
  // The churn goes in one frame: its commands on the room wait behind each
  // subscribe (client.max_pending_per_room).
  Daemon d({"--rooms.join_leave", "true", "--rooms.join_leave_rate", "5", "--client.command_burst",
            "1000000", "--client.max_pending_per_room", "1000"});
  std::vector<std::unique_ptr<WsClient>> members;
  for (int i = 0; i < 10; ++i) {
    members.push_back(connect_as(d.port, "member" + std::to_string(i)));
    subscribe(*members.back(), 2, "big");
  }
  // Drain what the members' own joins pushed, so only the attack counts.
  for (auto& m : members) expect_alive(*m, 3);
  const double dropped_before = metric(d.port, "herald_join_leave_dropped_total");

  auto churner = connect_as(d.port, "churner");
  const std::uint32_t kCycles = 200;
  std::vector<std::string> lines;
  for (std::uint32_t i = 0; i < kCycles; ++i) {
    lines.push_back(subscribe_cmd(10 + 2 * i, "big"));
    lines.push_back(unsubscribe_cmd(11 + 2 * i, "big"));
  }
  auto replies = send_and_collect(*churner, lines, 10);
  for (const auto& [rid, reply] : replies) EXPECT_TRUE(json_has(reply, "/result")) << reply;
  // The broker handles the room's commands in order: once it answers this,
  // every join and leave of the churn has been sent or dropped.
  request(*churner, 1000, R"({"id":1000,"presence_stats":{"room":"big"}})");

  std::deque<std::string> pushes;
  auto pong = request(*members[0], 4, R"({"id":4,"ping":{}})", &pushes);
  ASSERT_TRUE(pong);
  std::uint32_t received = 0;
  for (const std::string& m : pushes)
    if (json_has(m, "/join") || json_has(m, "/leave")) ++received;
  const double dropped = metric(d.port, "herald_join_leave_dropped_total") - dropped_before;
  // Every push of the churn was either sent to all members or dropped.
  EXPECT_EQ(received + dropped, 2 * kCycles) << "received " << received;
  EXPECT_LT(received, kCycles);  // rate 5/s: the churn would have to last 40 s
  for (auto& m : members) {
    expect_alive(*m, 5);
    EXPECT_FALSE(m->closed());
  }
}

// A plain TCP connection that sends nothing: an HTTP connection the server
// holds (until http.idle_timeout) like any other.
struct RawConnection {
  boost::asio::io_context io;
  boost::asio::ip::tcp::socket socket{io};
  explicit RawConnection(std::uint16_t port) {
    socket.connect({boost::asio::ip::make_address("127.0.0.1"), port});
  }
};

TEST(ConnectionsPerIp, ConnectionsOverTheLimitFromOneAddressGet503) {
  Daemon d({"--server.max_connections_per_ip", "3", "--server.per_ip_exempt_loopback", "false"});
  auto a = connect_as(d.port, "a");
  auto b = connect_as(d.port, "b");
  RawConnection idle(d.port);  // an HTTP connection that sends nothing counts too
  // The fourth from 127.0.0.1: refused before any byte of its request.
  const std::string refused = raw_exchange("127.0.0.1", d.port, "GET /healthz HTTP/1.1\r\n\r\n");
  EXPECT_THAT(refused, HasSubstr("503 Service Unavailable"));
  EXPECT_THAT(refused, HasSubstr("too_many_connections_per_ip"));
  EXPECT_THROW(WsClient("127.0.0.1", d.port), std::runtime_error);
  // The others are unaffected; one closing frees its slot.
  expect_alive(*a, 7);
  b.reset();
  std::unique_ptr<WsClient> c;
  for (int i = 0; i < 250 && !c; ++i) {
    try {
      c = connect_as(d.port, "c");
    } catch (const std::runtime_error&) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));  // b's close not seen yet
    }
  }
  ASSERT_TRUE(c) << "a closed connection's slot never came back";
  expect_alive(*c, 8);
  // Both refusals counted (and any attempt of the loop that came before
  // b's close was seen). /metrics needs a slot of its own: a goes first.
  a.reset();
  HttpReply m;
  for (int i = 0; i < 250 && m.status != 200; ++i) {
    m = http_get("127.0.0.1", d.port, "/metrics");
    if (m.status != 200) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_EQ(m.status, 200);
  EXPECT_GE(metric_value(m.body, "herald_connections_rejected_total{reason=\"per_ip\"}"), 2);
}

TEST(ConnectionsPerIp, LoopbackIsExemptByDefault) {
  Daemon d({"--server.max_connections_per_ip", "2"});
  std::vector<std::unique_ptr<WsClient>> clients;
  for (int i = 0; i < 10; ++i) clients.push_back(connect_as(d.port, "local" + std::to_string(i)));
  for (auto& c : clients) expect_alive(*c, 2);
}

}  // namespace
}  // namespace herald::test
