// The keyword API of heraldd as a real process: embedded (the default) and
// shared through a real redis-server by two heraldd processes.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "redis_server.hpp"
#include "store_support.hpp"
#include "support/daemon.hpp"
#include "support/http_client.hpp"
#include "support/json.hpp"

namespace herald::test {
namespace {

using ::testing::HasSubstr;

HttpReply call(std::uint16_t port, const std::string& method, const std::string& path,
               const std::string& body = "") {
  return http_request("127.0.0.1", port,
                      HttpCall{method, path, {{"Content-Type", "application/json"}}, body});
}

TEST(KeywordApi, EmbeddedStoreByDefault) {
  Daemon d;  // dev mode: loopback, no key
  auto r = call(d.port, "POST", "/api/keywords/chat/add",
                R"({"keywords":["spam",{"keyword":"scam","action":"reject","category":"fraud"}]})");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(json_uint(r.body, "/result/changed"), 2u);
  EXPECT_EQ(json_uint(r.body, "/result/version"), 1u);

  r = call(d.port, "GET", "/api/keywords/chat");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(json_size(r.body, "/result/keywords"), 2u);
  EXPECT_EQ(json_str(r.body, "/result/keywords/0/keyword"), "scam");
  EXPECT_EQ(json_str(r.body, "/result/keywords/0/action"), "reject");
  EXPECT_EQ(json_str(r.body, "/result/keywords/0/category"), "fraud");

  r = call(d.port, "POST", "/api/keywords/chat/match", R"({"text":"no SPAM here, or scam"})");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(json_size(r.body, "/result/matches"), 2u);
  EXPECT_EQ(json_str(r.body, "/result/matches/0/keyword"), "spam");
  EXPECT_EQ(json_uint(r.body, "/result/matches/0/start"), 3u);
  EXPECT_EQ(json_str(r.body, "/result/verdict"), "reject");
  EXPECT_EQ(json_str(r.body, "/result/masked"), "no **** here, or ****");

  r = call(d.port, "POST", "/api/keywords/chat/remove", R"({"keywords":["scam"]})");
  EXPECT_EQ(json_uint(r.body, "/result/changed"), 1u) << r.body;
  r = call(d.port, "POST", "/api/keywords/chat/match", R"({"text":"scam"})");
  EXPECT_EQ(json_str(r.body, "/result/verdict"), "allow") << r.body;
  r = call(d.port, "POST", "/api/keywords/chat/flush");
  EXPECT_EQ(json_uint(r.body, "/result/changed"), 1u) << r.body;

  auto metrics = http_get("127.0.0.1", d.port, "/metrics").body;
  EXPECT_GE(metric_value(metrics, R"(herald_keyword_searches_total{result="hit"})"), 2);
  EXPECT_EQ(metric_value(metrics, "herald_redis_round_trips_total"), 0);
  EXPECT_GE(metric_value(metrics, "herald_keyword_rebuilds_total"), 3);
}

TEST(KeywordApi, BadRequestsSayWhatAndWhere) {
  Daemon d({"--api.key", "k"});
  auto r = call(d.port, "POST", "/api/keywords/chat/add", R"({"keywords":["x"]})");
  EXPECT_EQ(r.status, 401);
  d = Daemon();
  struct Case {
    std::string path, body, error;
  };
  const std::vector<Case> cases = {
      {"/api/keywords/chat/add", "{", "body is not valid JSON"},
      {"/api/keywords/chat/add", R"({"kw":[]})", "keywords: expected an array"},
      {"/api/keywords/chat/add", R"({"keywords":["a",{"keyword":"b","action":"ban"}]})",
       "keywords[1].action: expected one of reject, mask, flag"},
      {"/api/keywords/chat/add", R"({"keywords":[""]})", "entries[0].keyword: keyword is empty"},
      {"/api/keywords/chat/add", R"({"keywords":[7]})",
       "keywords[0]: expected a string or an object"},
      {"/api/keywords/bad%20name/add", R"({"keywords":["x"]})",
       "dictionary name has a byte outside"},
      {"/api/keywords/chat/remove", R"({"keywords":[1]})", "keywords[0]: expected a string"},
      {"/api/keywords/chat/match", R"({"txt":"x"})", "text: expected a string"},
  };
  for (const Case& c : cases) {
    r = call(d.port, "POST", c.path, c.body);
    EXPECT_EQ(r.status, 400) << c.path << " " << c.body;
    EXPECT_THAT(json_str(r.body, "/error/message").value_or(""), HasSubstr(c.error)) << r.body;
  }
  EXPECT_EQ(call(d.port, "POST", "/api/keywords/chat/nope", "{}").status, 404);
  EXPECT_EQ(call(d.port, "DELETE", "/api/keywords/chat").status, 405);
}

TEST(KeywordApi, TwoDaemonsShareADictionaryThroughRedis) {
  RedisServer server;
  const std::vector<std::string> flags = {"--keywords.store",
                                          "redis",
                                          "--keywords.redis.address",
                                          "127.0.0.1:" + std::to_string(server.port()),
                                          "--keywords.redis.backstop_interval",
                                          "500ms"};
  Daemon a(flags), b(flags);
  // Both are connected (heraldd waits for Redis up to its connect timeout
  // before serving); b loads the dictionary before a writes again. It must
  // exist for b to hold it: a read of a dictionary nobody wrote holds
  // nothing (ReadsOfAnUnknownDictionaryTakeNoSlot below).
  ASSERT_TRUE(eventually(
      [&] {
        return call(a.port, "POST", "/api/keywords/mod/add", R"({"keywords":["seed"]})").status ==
               200;
      },
      10s));
  for (const Daemon* d : {&a, &b}) {
    ASSERT_TRUE(eventually(
        [&] {
          return call(d->port, "POST", "/api/keywords/mod/match", R"({"text":"x"})").status == 200;
        },
        10s));
  }
  auto r = call(a.port, "POST", "/api/keywords/mod/add",
                R"({"keywords":[{"keyword":"casino","action":"mask"}]})");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_TRUE(eventually(
      [&] {
        auto m = call(b.port, "POST", "/api/keywords/mod/match", R"({"text":"best casino"})");
        return json_str(m.body, "/result/verdict") == "mask";
      },
      10s));
  auto metrics = http_get("127.0.0.1", b.port, "/metrics").body;
  EXPECT_GE(metric_value(metrics, "herald_keyword_invalidations_total"), 1);
  EXPECT_GE(metric_value(metrics, "herald_keyword_invalidation_lag_seconds"), 0);
  EXPECT_GE(metric_value(metrics, "herald_redis_round_trips_total"), 1);

  // Redis goes away: searches keep working, writes say why they cannot.
  server.kill();
  EXPECT_TRUE(eventually(
      [&] {
        return call(a.port, "POST", "/api/keywords/mod/add", R"({"keywords":["x"]})").status == 503;
      },
      10s));
  r = call(a.port, "POST", "/api/keywords/mod/add", R"({"keywords":["x"]})");
  EXPECT_EQ(json_str(r.body, "/error/code"), "unavailable") << r.body;
  EXPECT_THAT(r.body, HasSubstr("redis unavailable at 127.0.0.1:" + std::to_string(server.port())));
  r = call(b.port, "POST", "/api/keywords/mod/match", R"({"text":"casino"})");
  EXPECT_EQ(json_str(r.body, "/result/verdict"), "mask") << r.body;
}

// An API client's typos: GET and match of names nobody wrote answer an
// empty dictionary (version 0) and take none of keywords.max_dictionaries;
// a dictionary created later, here or by another heraldd, is seen. Embedded
// and over Redis.
TEST(KeywordApi, ReadsOfAnUnknownDictionaryTakeNoSlot) {
  RedisServer server;
  const std::vector<std::string> limit = {"--keywords.max_dictionaries", "3"};
  std::vector<std::string> shared = limit;
  for (std::string f : {"--keywords.store", "redis", "--keywords.redis.address"})
    shared.push_back(f);
  shared.push_back("127.0.0.1:" + std::to_string(server.port()));
  Daemon embedded(limit), a(shared), b(shared);
  for (const Daemon* d : {&embedded, &a, &b}) {
    for (int i = 0; i < 20; ++i) {
      const std::string name = "typo" + std::to_string(i);
      auto r = call(d->port, "GET", "/api/keywords/" + name);
      ASSERT_EQ(r.status, 200) << r.body;
      EXPECT_EQ(json_uint(r.body, "/result/version"), 0u);
      EXPECT_EQ(json_size(r.body, "/result/keywords"), 0u);
      r = call(d->port, "POST", "/api/keywords/" + name + "/match", R"({"text":"typo"})");
      ASSERT_EQ(r.status, 200) << r.body;
      EXPECT_EQ(json_str(r.body, "/result/verdict"), "allow");
    }
  }
  // Created on a after b read it: b's next read sees it (and holds it).
  auto r = call(a.port, "POST", "/api/keywords/typo3/add", R"({"keywords":["late"]})");
  ASSERT_EQ(r.status, 200) << r.body;
  r = call(b.port, "POST", "/api/keywords/typo3/match", R"({"text":"late"})");
  EXPECT_EQ(json_str(r.body, "/result/verdict"), "flag") << r.body;
  // The slots the typos did not take: two more dictionaries on each.
  for (const Daemon* d : {&embedded, &a, &b}) {
    for (const char* name : {"one", "two"}) {
      r = call(d->port, "POST", std::string("/api/keywords/") + name + "/add",
               R"({"keywords":["word"]})");
      EXPECT_EQ(r.status, 200) << r.body;
      r = call(d->port, "GET", std::string("/api/keywords/") + name);  // held now
      EXPECT_EQ(json_size(r.body, "/result/keywords"), 1u) << r.body;
    }
  }
}

}  // namespace
}  // namespace herald::test
