// Moderation in heraldd as a real process: dictionaries written through the
// keyword API moderate live publications of the namespaces configured for
// them, from WebSocket clients and the server API alike; an edit takes
// effect on the next publication, with no restart; each publication is
// searched once, however many subscribers receive it.
#include "support/http_client.hpp"
#include "ws_common.hpp"

namespace herald::test {
namespace {

using ::testing::HasSubstr;

HttpReply post(std::uint16_t port, const std::string& path, const std::string& body) {
  return api_post(port, path, body, "k3y");
}

double metric(std::uint16_t port, const std::string& name) {
  return metric_value(http_get("127.0.0.1", port, "/metrics").body, name);
}

struct Moderated : ::testing::Test {
  void SetUp() override {
    conf = write_temp_file("moderation.toml", R"(
[api]
key = "k3y"

[namespaces.chat]
moderation = "banned, spam"

[namespaces.kids]
moderation = "banned"
moderation_whole_word = true
)");
    d = std::make_unique<Daemon>(std::vector<std::string>{"--config", conf});
    HttpReply r = post(d->port, "/api/keywords/banned/add",
                       R"({"keywords":[{"keyword":"darn","action":"mask","category":"mild"},)"
                       R"({"keyword":"scam","action":"reject","category":"fraud"}]})");
    ASSERT_EQ(r.status, 200) << r.body;
    r = post(d->port, "/api/keywords/spam/add",
             R"({"keywords":[{"keyword":"buy now","action":"flag","category":"ads"}]})");
    ASSERT_EQ(r.status, 200) << r.body;
  }
  std::string conf;
  std::unique_ptr<Daemon> d;
};

TEST_F(Moderated, MaskRejectAndFlagReachEverySubscriberOnce) {
  // Three subscribers (the server runs two shards), one publisher.
  std::vector<std::unique_ptr<WsClient>> subs;
  for (int i = 0; i < 3; ++i) {
    subs.push_back(connect_as(d->port, "sub" + std::to_string(i)));
    subscribe(*subs.back(), 2, "chat:lobby");
  }
  auto pub = connect_as(d->port, "alice");

  std::string r = publish(*pub, 3, "chat:lobby", R"({"text":"what a DARN day"})");
  EXPECT_TRUE(json_has(r, "/result/offset")) << r;
  for (auto& s : subs) {
    auto m = s->next();
    ASSERT_TRUE(m);
    EXPECT_EQ(json_str(*m, "/pub/data/text"), "what a **** day");
    EXPECT_EQ(json_raw(*m, "/pub/moderation"), R"({"masked":1,"flagged":0,"categories":["mild"]})");
  }

  r = publish(*pub, 4, "chat:lobby", R"({"text":"a real scam"})");
  EXPECT_EQ(json_uint(r, "/error/code"), 113u) << r;
  EXPECT_THAT(json_str(r, "/error/message").value_or(""), HasSubstr("fraud"));

  r = publish(*pub, 5, "chat:lobby", R"({"text":"Buy now, cheap"})");
  EXPECT_TRUE(json_has(r, "/result/offset")) << r;
  for (auto& s : subs) {
    auto m = s->next();
    ASSERT_TRUE(m);
    // The rejected publication was never published: the next one is offset 2.
    EXPECT_EQ(json_uint(*m, "/pub/offset"), 2u);
    EXPECT_EQ(json_str(*m, "/pub/data/text"), "Buy now, cheap");
    EXPECT_EQ(json_raw(*m, "/pub/moderation"), R"({"masked":0,"flagged":1,"categories":["ads"]})");
  }
  // History keeps what was published (masked), not what was sent.
  r = request(*pub, 6, R"({"id":6,"history":{"room":"chat:lobby","limit":10}})").value_or("");
  EXPECT_EQ(json_str(r, "/result/publications/0/data/text"), "what a **** day") << r;

  // One search per publication: three publications, nine deliveries.
  EXPECT_EQ(metric(d->port, "herald_moderation_searches_total"), 3);
  EXPECT_EQ(metric(d->port, "herald_moderation_rejected_total"), 1);
  EXPECT_EQ(metric(d->port, "herald_moderation_masked_total"), 1);
  EXPECT_EQ(metric(d->port, "herald_moderation_flagged_total"), 1);
}

// The finding, over a real WebSocket: a banned word as an object key used
// to reach every subscriber as sent. Now it is masked (mask keyword) or the
// publication refused (reject keyword), as for a value.
TEST_F(Moderated, ObjectKeysAreModeratedLikeValues) {
  auto sub = connect_as(d->port, "sub");
  subscribe(*sub, 2, "chat:lobby");
  auto pub = connect_as(d->port, "mallory");
  std::string r = publish(*pub, 3, "chat:lobby", R"({"darn":1,"deep":[{"a Darn key":"x"}]})");
  EXPECT_TRUE(json_has(r, "/result/offset")) << r;
  auto m = sub->next();
  ASSERT_TRUE(m);
  EXPECT_EQ(json_raw(*m, "/pub/data"), R"({"****":1,"deep":[{"a **** key":"x"}]})") << *m;
  EXPECT_EQ(json_raw(*m, "/pub/moderation"), R"({"masked":2,"flagged":0,"categories":["mild"]})");
  EXPECT_THAT(*m, ::testing::Not(HasSubstr("arn")));

  r = publish(*pub, 4, "chat:lobby", R"({"scam":1})");
  EXPECT_EQ(json_uint(r, "/error/code"), 113u) << r;
  // Nothing else reached the subscriber: the next push is the next publish.
  r = publish(*pub, 5, "chat:lobby", R"({"ok":1})");
  EXPECT_TRUE(json_has(r, "/result/offset")) << r;
  m = sub->next();
  ASSERT_TRUE(m);
  EXPECT_EQ(json_raw(*m, "/pub/data"), R"({"ok":1})") << *m;
}

TEST_F(Moderated, TheServerApiIsModeratedToo) {
  auto sub = connect_as(d->port, "bob");
  subscribe(*sub, 2, "chat:news");
  HttpReply r = post(d->port, "/api/publish", R"({"room":"chat:news","data":"darn"})");
  EXPECT_EQ(r.status, 200) << r.body;
  auto m = sub->next();
  ASSERT_TRUE(m);
  EXPECT_EQ(json_raw(*m, "/pub/data"), R"("****")");

  r = post(d->port, "/api/publish", R"({"room":"chat:news","data":"scam"})");
  EXPECT_EQ(r.status, 422) << r.body;
  EXPECT_EQ(json_str(r.body, "/error/code"), "moderation_rejected") << r.body;
  r = post(d->port, "/api/broadcast", R"({"rooms":["chat:news","other"],"data":"scam"})");
  EXPECT_EQ(json_uint(r.body, "/result/responses/0/error/code"), 113u) << r.body;
  EXPECT_TRUE(json_has(r.body, "/result/responses/1/offset")) << r.body;  // not moderated
}

TEST_F(Moderated, EditsTakeEffectOnTheNextPublication) {
  auto alice = connect_as(d->port, "alice");
  subscribe(*alice, 2, "kids:play");
  subscribe(*alice, 3, "chat:play");
  // A publisher's own push may come before its reply, which request() would
  // skip: publish from another connection.
  auto pub = connect_as(d->port, "pub");
  // kids: whole words only; chat: anywhere.
  std::string r = publish(*pub, 4, "kids:play", R"("darned darn")");
  auto m = alice->next();
  ASSERT_TRUE(m) << r;
  EXPECT_EQ(json_raw(*m, "/pub/data"), R"("darned ****")");

  HttpReply edit = post(d->port, "/api/keywords/banned/add",
                        R"({"keywords":[{"keyword":"heck","action":"mask"}]})");
  ASSERT_EQ(edit.status, 200) << edit.body;
  for (std::string room : {"kids:play", "chat:play"}) {
    publish(*pub, 5, room, R"("heck")");
    m = alice->next();
    ASSERT_TRUE(m);
    EXPECT_EQ(json_raw(*m, "/pub/data"), R"("****")") << room;
  }
  edit = post(d->port, "/api/keywords/banned/remove", R"({"keywords":["heck"]})");
  ASSERT_EQ(edit.status, 200) << edit.body;
  publish(*pub, 6, "chat:play", R"("heck")");
  m = alice->next();
  ASSERT_TRUE(m);
  EXPECT_EQ(json_raw(*m, "/pub/data"), R"("heck")");
  EXPECT_FALSE(json_has(*m, "/pub/moderation"));
}

TEST(Moderation, ADictionaryThatCannotBeLoadedRefusesRatherThanPublishes) {
  // Redis unreachable since start (port 1 refuses): the dictionary was never
  // loaded, so a publication is refused with 114, never sent unmoderated.
  Daemon d({"--keywords.store", "redis", "--keywords.redis.address", "127.0.0.1:1",
            "--keywords.redis.connect_timeout", "100ms", "--keywords.redis.command_timeout",
            "500ms", "--rooms.moderation", "banned", "--rooms.join_leave", "true"});
  auto sub = connect_as(d.port, "sub");
  subscribe(*sub, 2, "lobby");
  auto pub = connect_as(d.port, "pub");
  std::string r = publish(*pub, 3, "lobby", R"("darn")");
  EXPECT_EQ(json_uint(r, "/error/code"), 114u) << r;
  // A marker after the refusal: a third client's join reaches `sub` by the
  // room's own order, so whatever the room sent before it has arrived too.
  auto late = connect_as(d.port, "late");
  subscribe(*late, 4, "lobby");
  auto m = sub->next(10s);
  ASSERT_TRUE(m) << "the join marker never arrived";
  EXPECT_TRUE(json_has(*m, "/join")) << "a refused publication was delivered: " << *m;
}

TEST(Moderation, ABadDictionaryListStopsTheStartWithTheSetting) {
  std::string conf =
      write_temp_file("bad-moderation.toml", "[namespaces.chat]\nmoderation = \"a b\"\n");
  auto r = run({HERALDD_PATH, "--config", conf, "--server.listen", "127.0.0.1:0"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.output, HasSubstr("namespaces.chat.moderation: 'a b'")) << r.output;
}

}  // namespace
}  // namespace herald::test
