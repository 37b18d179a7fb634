// What a subscription's override of its room's presence options promises
// (Centrifugo's `override`, here through the server API's subscribe; the
// tokens carry the same, auth/subscribe_override.hpp), checked the same way
// against either broker (the embedded one in api_test.cpp, Redis in
// cluster_test.cpp, where presence is read from Redis and join and leave
// travel on its channel): presence false leaves the client out of the
// room's presence, join_leave false keeps its joining and leaving quiet,
// join_leave alone still announces a client that is not listed (its leave
// carrying its info), and force_push_join_leave false spares the client
// the others' joins and leaves. A malformed override is refused by name.
#pragma once

#include <set>
#include <string>

#include "support/http_client.hpp"
#include "ws_common.hpp"

namespace herald::test {

// `api_port` serves the API (key "k3y") and the users it subscribes;
// `ws_port` the watcher, which reads presence there (in a cluster, another
// node). `room` is fresh, in a namespace with presence and join_leave on.
inline void expect_overrides_shape_presence(std::uint16_t api_port, std::uint16_t ws_port,
                                            const std::string& room) {
  auto api = [api_port](const std::string& method, const std::string& body) {
    return api_post(api_port, "/api/" + method, body, "k3y");
  };
  auto watcher = connect_as(ws_port, "watcher");
  ASSERT_TRUE(json_has(subscribe(*watcher, 2, room), "/result"));
  // The watcher's own join may come back to it (in a cluster it travels
  // through Redis and can arrive after the watcher joined): a first
  // publication, read past whatever precedes it, is where counting starts.
  ASSERT_EQ(api("publish", R"({"channel":")" + room + R"(","data":0})").status, 200);
  ASSERT_TRUE(next_pub(*watcher));
  std::uint32_t id = 10;
  // The watcher's next push after a publication the test makes now: a join
  // or leave the broker pushed before it would come first.
  std::uint64_t published = 0;
  auto next_after_publish = [&] {
    EXPECT_EQ(api("publish",
                  R"({"channel":")" + room + R"(","data":)" + std::to_string(++published) + "}")
                  .status,
              200);
    return watcher->next().value_or("(nothing)");
  };
  auto presence_users = [&] {
    ++id;
    auto r = request(*watcher, id,
                     R"({"id":)" + std::to_string(id) + R"(,"presence":{"room":")" + room + "\"}}")
                 .value_or("");
    std::multiset<std::string> users;
    for (std::size_t i = 0; i < json_size(r, "/result/clients"); ++i) {
      users.insert(json_str(r, "/result/clients/" + std::to_string(i) + "/user").value_or(""));
    }
    return users;
  };
  // Subscribes `user` (connected to the API's node) with `override`, and
  // waits for its subscribe push.
  auto subscribed = [&](const std::string& user, const std::string& override) {
    auto c = connect_as(api_port, user);
    auto r = api("subscribe", R"({"channel":")" + room + R"(","user":")" + user +
                                  R"(","override":)" + override + "}");
    EXPECT_EQ(r.status, 200) << r.body;
    auto push = c->next();
    EXPECT_TRUE(push && json_has(*push, "/subscribe")) << push.value_or("(nothing)");
    return c;
  };
  auto unsubscribed = [&](const std::string& user) {
    auto r = api("unsubscribe", R"({"channel":")" + room + R"(","user":")" + user + "\"}");
    EXPECT_EQ(r.status, 200) << r.body;
  };

  // Neither listed nor announced: nobody hears of it.
  auto ghost = subscribed("ghost", R"({"presence":{"value":false},"join_leave":{"value":false},)"
                                   R"("force_push_join_leave":{"value":false}})");
  std::string m = next_after_publish();
  EXPECT_TRUE(json_has(m, "/pub")) << "the ghost's join was pushed: " << m;
  EXPECT_EQ(presence_users(), (std::multiset<std::string>{"watcher"}));

  // Listed, not announced.
  auto quiet = subscribed("quiet", R"({"join_leave":{"value":false}})");
  m = next_after_publish();
  EXPECT_TRUE(json_has(m, "/pub")) << "the quiet one's join was pushed: " << m;
  EXPECT_EQ(presence_users(), (std::multiset<std::string>{"quiet", "watcher"}));
  unsubscribed("quiet");
  m = next_after_publish();
  EXPECT_TRUE(json_has(m, "/pub")) << "the quiet one's leave was pushed: " << m;

  // Announced, not listed: its join and leave carry its info, from the
  // client (it has no presence entry to take it from).
  auto herald = subscribed("herald", R"({"presence":{"value":false}})");
  m = watcher->next().value_or("(nothing)");
  EXPECT_EQ(json_str(m, "/join/info/user"), "herald") << m;
  EXPECT_EQ(presence_users(), (std::multiset<std::string>{"watcher"}));
  unsubscribed("herald");
  m = watcher->next().value_or("(nothing)");
  EXPECT_EQ(json_str(m, "/leave/info/user"), "herald") << m;

  m = next_after_publish();
  EXPECT_TRUE(json_has(m, "/pub")) << m;

  // The ghost heard none of those joins and leaves (force_push_join_leave
  // false), only the publications: the herald's would have come before
  // the last one.
  for (std::uint64_t n = 1; n <= published; ++n) {
    m = ghost->next().value_or("(nothing)");
    EXPECT_EQ(json_uint(m, "/pub/data"), n) << "the ghost was sent a join or leave: " << m;
  }

  // Refused with what is wrong, the API going on.
  for (std::string_view bad : {R"({"presence":true})", R"({"presense":{"value":true}})"}) {
    auto r = api("subscribe", R"({"channel":")" + room + R"(","user":"ghost","override":)" +
                                  std::string(bad) + "}");
    EXPECT_EQ(json_uint(r.body, "/error/code"), 107u) << bad << " -> " << r.body;
    EXPECT_THAT(r.body, ::testing::HasSubstr("override.")) << r.body;
  }
}

}  // namespace herald::test
