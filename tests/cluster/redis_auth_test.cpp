// heraldd against a Redis that requires authentication (requirepass, and a
// Redis 6 ACL user with the default user switched off), as real processes:
// the cluster broker (commands and pub/sub) and the keyword store (commands
// and its invalidation channel) authenticate on every connection, and a
// wrong password stops heraldd at start with the key to change and Redis's
// answer, never the password itself.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cluster_support.hpp"

namespace herald::test {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

std::vector<std::string> authenticated_flags(const RedisServer& redis, const std::string& user,
                                             const std::string& password,
                                             std::vector<std::string> extra = {}) {
  const std::string address = "127.0.0.1:" + std::to_string(redis.port());
  std::vector<std::string> f = {
      "--cluster.redis.password",           password, "--keywords.store",          "redis",
      "--keywords.redis.address",           address,  "--keywords.redis.password", password,
      "--keywords.redis.backstop_interval", "200ms"};
  if (!user.empty()) {
    f.insert(f.end(), {"--cluster.redis.username", user, "--keywords.redis.username", user});
  }
  f.insert(f.end(), extra.begin(), extra.end());
  return cluster_flags(redis.port(), f);
}

// Two nodes: a publication on one reaches a subscriber on the other (room
// scripts and the room's channel, over Redis), and a dictionary written
// through one masks publications through the other (the keyword store's
// commands and its invalidations).
void expect_cluster_works(const RedisServer& redis, const std::string& user,
                          const std::string& password) {
  const std::string conf = write_temp_file("auth_moderation.toml", R"(
[namespaces.chat]
moderation = "banned"
)");
  Daemon a(authenticated_flags(redis, user, password, {"--config", conf}));
  Daemon b(authenticated_flags(redis, user, password, {"--config", conf}));
  ASSERT_NE(a.port, 0);
  ASSERT_NE(b.port, 0);
  EXPECT_EQ(node_metric(a.port, "herald_cluster_redis_up"), 1);
  EXPECT_EQ(node_metric(b.port, "herald_cluster_redis_up"), 1);
  auto sub = connect_as(b.port, "s");
  ASSERT_TRUE(json_has(subscribe(*sub, 2, "chat:auth"), "/result"));
  auto pub = connect_as(a.port, "p");
  auto r = publish(*pub, 3, "chat:auth", R"({"text":"hello"})");
  ASSERT_TRUE(json_has(r, "/result/offset")) << r;
  auto m = next_pub(*sub);
  ASSERT_TRUE(m);
  EXPECT_EQ(json_str(*m, "/pub/data/text"), "hello");

  const HttpReply reply = api_post(b.port, "/api/keywords/banned/add",
                                   R"({"keywords":[{"keyword":"darn","action":"mask"}]})");
  ASSERT_EQ(reply.status, 200) << reply.body;
  std::uint32_t id = 10;
  EXPECT_TRUE(eventually([&] {
    auto p = publish(*pub, id++, "chat:auth", R"({"text":"a darn day"})");
    if (!json_has(p, "/result")) return false;
    auto got = next_pub(*sub);
    return got && json_str(*got, "/pub/data/text") == "a **** day";
  }));
  // The data is really in the authenticated Redis.
  EXPECT_EQ(redis.command({"EXISTS", "herald:kw:{banned}:version"}).integer, 1);
  EXPECT_THAT(a.proc->output(), Not(HasSubstr(password)));
}

TEST(RedisAuth, NodesAndKeywordStoreAuthenticateWithRequirepass) {
  RedisServer redis({"--requirepass", "cluster-pw-1"}, {"", "cluster-pw-1"});
  expect_cluster_works(redis, "", "cluster-pw-1");
}

TEST(RedisAuth, NodesAndKeywordStoreAuthenticateAsAnAclUser) {
  // The default user is off: nothing works without AUTH as alice.
  RedisServer redis(
      {"--user", "alice", "on", ">alice-pw-2", "~*", "&*", "+@all", "--user", "default", "off"},
      {"alice", "alice-pw-2"});
  expect_cluster_works(redis, "alice", "alice-pw-2");
}

TEST(RedisAuth, AWrongClusterPasswordStopsHeralddNamingTheKey) {
  RedisServer redis({"--user", "alice", "on", ">alice-pw-3", "~*", "&*", "+@all"},
                    {"alice", "alice-pw-3"});
  auto r = run({HERALDD_PATH, "--server.listen", "127.0.0.1:0", "--cluster.mode", "redis",
                "--cluster.redis.address", "127.0.0.1:" + std::to_string(redis.port()),
                "--cluster.redis.username", "alice", "--cluster.redis.password", "guessed-wrong"});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("cluster.redis.password"));
  EXPECT_THAT(r.output, HasSubstr("WRONGPASS"));
  EXPECT_THAT(r.output, HasSubstr("user 'alice'"));
  EXPECT_THAT(r.output, Not(HasSubstr("guessed-wrong")));
}

// No password for a Redis that requires one: the PING sent at connect is
// answered NOAUTH, and start-up stops there (it used to serve, with every
// publish failing "ERR Protocol error: unauthenticated multibulk length").
TEST(RedisAuth, ANodeWithoutThePasswordStopsAtStart) {
  RedisServer redis({"--requirepass", "cluster-pw-5"}, {"", "cluster-pw-5"});
  auto r = run({HERALDD_PATH, "--server.listen", "127.0.0.1:0", "--cluster.mode", "redis",
                "--cluster.redis.address", "127.0.0.1:" + std::to_string(redis.port())});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("cluster.redis.password"));
  EXPECT_THAT(r.output, HasSubstr("requires a password: NOAUTH"));
}

TEST(RedisAuth, AWrongKeywordStorePasswordStopsHeralddNamingTheKey) {
  RedisServer redis({"--requirepass", "kw-pw-4"}, {"", "kw-pw-4"});
  auto r = run({HERALDD_PATH, "--server.listen", "127.0.0.1:0", "--keywords.store", "redis",
                "--keywords.redis.address", "127.0.0.1:" + std::to_string(redis.port()),
                "--keywords.redis.password", "guessed-wrong"});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("keywords.redis.password"));
  EXPECT_THAT(r.output, HasSubstr("WRONGPASS"));
  EXPECT_THAT(r.output, Not(HasSubstr("guessed-wrong")));
  // And no password at all: Redis answers NOAUTH.
  auto none = run({HERALDD_PATH, "--server.listen", "127.0.0.1:0", "--keywords.store", "redis",
                   "--keywords.redis.address", "127.0.0.1:" + std::to_string(redis.port())});
  EXPECT_EQ(none.exit_code, 2) << none.output;
  EXPECT_THAT(none.output, HasSubstr("keywords.redis.password"));
  EXPECT_THAT(none.output, HasSubstr("NOAUTH"));
}

}  // namespace
}  // namespace herald::test
