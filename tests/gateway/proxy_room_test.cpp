// The subscribe and publish hooks through a real heraldd to a real
// application backend (support/backend.mjs), per namespace: the backend
// allows some rooms and refuses others, rewrites publications, and can be
// told to fail. What it decides must reach the client exactly, moderation
// must judge what the backend returned, a namespace without the hook must
// never reach the backend, and every failure must leave the room usable.
#include "proxy_backend.hpp"

namespace herald::test {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

struct RoomHooks : ::testing::Test {
  void SetUp() override {
    conf = write_temp_file("room-hooks.toml", R"(
[api]
key = "k3y"

[namespaces.chat]
subscribe_proxy = true
publish_proxy = true
moderation = "banned"

[namespaces.staff]
subscribe_proxy = true
)");
    // proxy.timeout 2 s: what the stall cases wait for, and a bound that a
    // loaded machine's backend answers within (a shorter one failed an
    // ordinary publish under load).
    d = std::make_unique<Daemon>(std::vector<std::string>{
        "--config", conf, "--proxy.subscribe_url", backend.url("subscribe"), "--proxy.publish_url",
        backend.url("publish"), "--proxy.timeout", "2s"});
    HttpReply r = api_post(d->port, "/api/keywords/banned/add",
                           R"({"keywords":[{"keyword":"darn","action":"mask","category":"mild"},)"
                           R"({"keyword":"scam","action":"reject","category":"fraud"}]})",
                           "k3y");
    ASSERT_EQ(r.status, 200) << r.body;
  }
  std::string sub(WsClient& c, std::uint32_t id, const std::string& room,
                  const std::string& data = "", const std::string& since = "") {
    std::string cmd = R"({"id":)" + std::to_string(id) + R"(,"subscribe":{"room":")" + room + "\"";
    if (!data.empty()) cmd += R"(,"data":)" + data;
    if (!since.empty()) cmd += R"(,"since":)" + since;
    auto r = request(c, id, cmd + "}}");
    EXPECT_TRUE(r) << "no reply to " << cmd;
    return r.value_or("");
  }
  Backend backend;
  std::string conf;
  std::unique_ptr<Daemon> d;
};

void expect_temporary(const std::string& reply, const std::string& kind, const std::string& hook) {
  EXPECT_EQ(json_uint(reply, "/error/code"), 116u) << reply;
  EXPECT_THAT(json_str(reply, "/error/message").value_or(""),
              StartsWith(kind + ": " + hook + " backend"))
      << reply;
}

TEST_F(RoomHooks, TheBackendAllowsAndRefusesSubscriptions) {
  auto alice = connect_as(d->port, "alice");
  auto r = sub(*alice, 2, "chat:lobby");
  EXPECT_TRUE(json_has(r, "/result/epoch")) << r;
  EXPECT_EQ(json_str(r, "/result/data/topic"), "about lobby") << r;  // the backend's data
  auto refused = sub(*alice, 3, "staff:ops");
  EXPECT_EQ(refused, R"({"id":3,"error":{"code":1403,"message":"staff only"}})");
  auto admin = connect_as(d->port, "admin");
  EXPECT_TRUE(json_has(sub(*admin, 2, "staff:ops"), "/result/epoch"));
  // The refused room is not subscribed: a second try asks again.
  EXPECT_EQ(json_uint(sub(*alice, 4, "staff:ops"), "/error/code"), 1403u);
  // A namespace without subscribe_proxy never reaches the backend.
  const auto asked = backend.stat("requests");
  EXPECT_TRUE(json_has(sub(*alice, 5, "lobby"), "/result/epoch"));
  EXPECT_EQ(backend.stat("requests"), asked);
}

TEST_F(RoomHooks, ChanInfoJoinsThePresenceEntry) {
  auto alice = connect_as(d->port, "alice");
  sub(*alice, 2, "chat:lobby");
  auto p = request(*alice, 3, R"({"id":3,"presence":{"room":"chat:lobby"}})");
  ASSERT_TRUE(p);
  EXPECT_EQ(json_str(*p, "/result/clients/0/user"), "alice") << *p;
  EXPECT_EQ(json_str(*p, "/result/clients/0/chan_info/role"), "member") << *p;
}

TEST_F(RoomHooks, SubscribeFailuresAreTemporaryAndTheRoomStaysUsable) {
  auto alice = connect_as(d->port, "alice");
  auto bystander = connect_as(d->port, "bob");
  const std::vector<std::pair<std::string, std::string>> cases = {{"stall", "timeout"},
                                                                  {"status500", "bad_status"},
                                                                  {"bad_info", "bad_answer"},
                                                                  {"hangup", "unavailable"}};
  std::uint32_t id = 2;
  for (const auto& [mode, kind] : cases) {
    SCOPED_TRACE(mode);
    expect_temporary(sub(*alice, id++, "chat:lobby", R"({"mode":")" + mode + "\"}"), kind,
                     "subscribe");
    expect_alive(*bystander, id++);
  }
  EXPECT_EQ(proxy_errors(*d, "subscribe", "bad_answer"), 1);
  EXPECT_TRUE(json_has(sub(*alice, id++, "chat:lobby"), "/result/epoch"));
}

TEST_F(RoomHooks, CommandsOnARoomKeepTheirOrderAcrossTheBackend) {
  auto alice = connect_as(d->port, "alice");
  // Sent together: the unsubscribe waits for the subscribe's decision.
  alice->send(R"({"id":2,"subscribe":{"room":"chat:x"}})"
              "\n"
              R"({"id":3,"unsubscribe":{"room":"chat:x"}})"
              "\n"
              R"({"id":4,"subscribe":{"room":"chat:x"}})");
  auto a = alice->next();
  auto b = alice->next();
  auto c = alice->next();
  ASSERT_TRUE(a && b && c);
  EXPECT_EQ(json_uint(*a, "/id"), 2u) << *a;
  EXPECT_TRUE(json_has(*a, "/result/epoch")) << *a;
  EXPECT_EQ(*b, R"({"id":3,"result":{}})");
  EXPECT_EQ(json_uint(*c, "/id"), 4u) << *c;
  EXPECT_TRUE(json_has(*c, "/result/epoch")) << *c;
}

// The first publication's answer comes last (the backend holds it 300 ms,
// on another of its connections): it is still published first, and the
// replies come in the order sent.
TEST_F(RoomHooks, PublicationsKeepTheirOrderWhenTheBackendAnswersOutOfOrder) {
  auto alice = connect_as(d->port, "alice");
  auto bob = connect_as(d->port, "bob");
  sub(*bob, 2, "chat:order");
  alice->send(R"({"id":2,"publish":{"room":"chat:order","data":{"text":"/slow 300 first"}}})");
  alice->send(R"({"id":3,"publish":{"room":"chat:order","data":{"text":"second"}}})");
  alice->send(R"({"id":4,"publish":{"room":"chat:order","data":{"text":"/slow 50 third"}}})");
  for (std::uint64_t id = 2; id <= 4; ++id) {
    auto r = alice->next();
    ASSERT_TRUE(r);
    EXPECT_EQ(json_uint(*r, "/id"), id) << *r;
    EXPECT_EQ(json_uint(*r, "/result/offset"), id - 1) << *r;
  }
  for (const char* text : {"first", "second", "third"}) {
    auto m = next_pub(*bob);
    ASSERT_TRUE(m);
    EXPECT_EQ(json_str(*m, "/pub/data/text"), text) << *m;
  }
}

TEST_F(RoomHooks, TheBackendsDisconnectOnSubscribeCloses) {
  auto alice = connect_as(d->port, "alice");
  alice->send(R"({"id":2,"subscribe":{"room":"chat:x","data":{"mode":"disconnect"}}})");
  auto closed = alice->wait_closed();
  ASSERT_TRUE(closed);
  EXPECT_EQ(closed->code, 4403);
}

TEST_F(RoomHooks, TheBackendRewritesAndRefusesPublications) {
  auto alice = connect_as(d->port, "alice");
  auto bob = connect_as(d->port, "bob");
  sub(*bob, 2, "chat:lobby");
  auto r = publish(*alice, 2, "chat:lobby", R"({"text":"/shrug"})");
  EXPECT_TRUE(json_has(r, "/result/offset")) << r;
  auto m = next_pub(*bob);
  ASSERT_TRUE(m);
  EXPECT_EQ(json_str(*m, "/pub/data/text"), "¯\\_(ツ)_/¯") << *m;

  EXPECT_EQ(publish(*alice, 3, "chat:lobby", R"({"text":"buy spam"})"),
            R"({"id":3,"error":{"code":1409,"message":"no spam"}})");
  publish(*alice, 4, "chat:lobby", R"({"text":"hello"})");  // kept as sent
  m = next_pub(*bob);
  ASSERT_TRUE(m);
  EXPECT_EQ(json_raw(*m, "/pub/data"), R"({"text":"hello"})") << *m;  // the refused one never came
  EXPECT_EQ(json_uint(*m, "/pub/offset"), 2u) << *m;
}

// skip_history: delivered to the subscribers of the moment, with no offset;
// the stream's offsets, history and recovery go on as if it had not been.
TEST_F(RoomHooks, SkipHistoryPublishesOutsideTheStream) {
  auto alice = connect_as(d->port, "alice");
  auto bob = connect_as(d->port, "bob");
  sub(*bob, 2, "chat:lobby");
  publish(*alice, 2, "chat:lobby", R"({"text":"one"})");
  EXPECT_EQ(publish(*alice, 3, "chat:lobby", R"({"text":"/live typing a darn word"})"),
            R"({"id":3,"result":{}})");
  EXPECT_EQ(json_uint(publish(*alice, 4, "chat:lobby", R"({"text":"two"})"), "/result/offset"), 2u);

  auto one = next_pub(*bob);
  auto live = next_pub(*bob);
  auto two = next_pub(*bob);
  ASSERT_TRUE(one && live && two);
  EXPECT_EQ(json_uint(*one, "/pub/offset"), 1u) << *one;
  // Moderation judged what the backend returned, outside the stream too.
  EXPECT_EQ(json_str(*live, "/pub/data/text"), "typing a **** word") << *live;
  EXPECT_EQ(json_str(*live, "/pub/info/user"), "alice") << *live;
  EXPECT_FALSE(json_has(*live, "/pub/offset")) << *live;
  EXPECT_FALSE(json_has(*live, "/pub/epoch")) << *live;
  EXPECT_EQ(json_uint(*two, "/pub/offset"), 2u) << *two;

  // History and recovery hold the stream only.
  auto h = request(*bob, 3, R"({"id":3,"history":{"room":"chat:lobby"}})");
  ASSERT_TRUE(h);
  ASSERT_EQ(json_size(*h, "/result/publications"), 2u) << *h;
  EXPECT_EQ(json_str(*h, "/result/publications/1/data/text"), "two") << *h;
  auto carol = connect_as(d->port, "carol");
  const std::string epoch = json_str(*one, "/pub/epoch").value_or("");
  auto r = sub(*carol, 2, "chat:lobby", "", R"({"epoch":")" + epoch + R"(","offset":0})");
  EXPECT_EQ(json_bool(r, "/result/recovered"), true) << r;
  ASSERT_EQ(json_size(r, "/result/publications"), 2u) << r;
  EXPECT_EQ(json_str(r, "/result/publications/1/data/text"), "two") << r;

  // A skip_history that is not a boolean is a bad answer: nothing goes out.
  expect_temporary(publish(*alice, 5, "chat:lobby", R"({"text":"/live_bad"})"), "bad_answer",
                   "publish");
  publish(*alice, 6, "chat:lobby", R"({"text":"three"})");
  auto three = next_pub(*bob);
  ASSERT_TRUE(three);
  EXPECT_EQ(json_uint(*three, "/pub/offset"), 3u) << *three;
}

TEST_F(RoomHooks, ModerationJudgesWhatTheBackendReturned) {
  auto alice = connect_as(d->port, "alice");
  auto bob = connect_as(d->port, "bob");
  sub(*bob, 2, "chat:lobby");
  publish(*alice, 2, "chat:lobby", R"({"text":"/say what a darn day"})");
  auto m = next_pub(*bob);
  ASSERT_TRUE(m);
  EXPECT_EQ(json_str(*m, "/pub/data/text"), "what a **** day") << *m;
  auto rejected = publish(*alice, 3, "chat:lobby", R"({"text":"/say a scam"})");
  EXPECT_EQ(json_uint(rejected, "/error/code"), 113u) << rejected;
}

// docs/backend.md: the checks before the hook run first, so a refused
// publish costs no request; the server API's publications come from the
// application already and do not ask either.
TEST_F(RoomHooks, RefusedEarlyOrFromTheServerApiNoRequestIsMade) {
  auto alice = connect_as(d->port, "alice");
  auto bob = connect_as(d->port, "bob");
  sub(*bob, 2, "chat:lobby");
  const auto asked = backend.stat("requests");
  const std::string big = "\"" + std::string(20000, 'x') + "\"";
  EXPECT_EQ(json_uint(publish(*alice, 2, "chat:lobby", big), "/error/code"), 106u);
  HttpReply r =
      api_post(d->port, "/api/publish", R"({"room":"chat:lobby","data":{"text":"/shrug"}})", "k3y");
  EXPECT_EQ(r.status, 200) << r.body;
  auto m = next_pub(*bob);
  ASSERT_TRUE(m);
  EXPECT_EQ(json_str(*m, "/pub/data/text"), "/shrug") << *m;  // not rewritten: not asked
  EXPECT_EQ(backend.stat("requests"), asked);
}

TEST_F(RoomHooks, PublishBadAnswersAndFailuresAreTemporary) {
  auto alice = connect_as(d->port, "alice");
  auto bob = connect_as(d->port, "bob");
  sub(*bob, 2, "chat:lobby");
  auto big = publish(*alice, 2, "chat:lobby", R"({"text":"/big"})");
  expect_temporary(big, "bad_answer", "publish");
  EXPECT_THAT(big, HasSubstr("max_publication_bytes"));
  expect_temporary(publish(*alice, 3, "chat:lobby", R"({"text":"/bad"})"), "bad_answer", "publish");
  expect_temporary(publish(*alice, 4, "chat:lobby", R"({"text":"/stall"})"), "timeout", "publish");
  EXPECT_EQ(proxy_errors(*d, "publish", "bad_answer"), 2);
  // None of them was published; the next one is offset 1.
  publish(*alice, 5, "chat:lobby", R"({"text":"ok"})");
  auto m = next_pub(*bob);
  ASSERT_TRUE(m);
  EXPECT_EQ(json_uint(*m, "/pub/offset"), 1u) << *m;
  // A namespace without publish_proxy never reaches the backend.
  const auto asked = backend.stat("requests");
  EXPECT_TRUE(json_has(publish(*alice, 6, "staff:ops", R"({"text":"/stall"})"), "/result/offset"));
  EXPECT_EQ(backend.stat("requests"), asked);
  // The backend may disconnect the publisher.
  alice->send(R"({"id":7,"publish":{"room":"chat:lobby","data":{"text":"/kick"}}})");
  auto closed = alice->wait_closed();
  ASSERT_TRUE(closed);
  EXPECT_EQ(closed->code, 4501);
  expect_alive(*bob, 3);
}

}  // namespace
}  // namespace herald::test
