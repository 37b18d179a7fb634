// `herald kw` as a real process: against a running heraldd (its embedded
// store) and directly against a real redis-server shared with heraldd.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "redis_cluster.hpp"
#include "redis_server.hpp"
#include "support/daemon.hpp"
#include "support/process.hpp"

namespace herald::test {
namespace {

using ::testing::HasSubstr;

RunResult kw(std::vector<std::string> args) {
  std::vector<std::string> argv = {HERALD_PATH, "kw"};
  argv.insert(argv.end(), args.begin(), args.end());
  return run(argv);
}

TEST(KwCli, AgainstHeralddsEmbeddedStore) {
  Daemon d;
  const std::string server = "127.0.0.1:" + std::to_string(d.port);
  auto r = kw({"--server", server, "add", "chat", "spam", "scam", "--action", "reject",
               "--category", "ads"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output, "version 1 changed 2\n");
  r = kw({"--server", server, "ls", "chat"});
  EXPECT_EQ(r.output, "scam\treject\tads\nspam\treject\tads\n");
  r = kw({"--server", server, "match", "chat", "no", "SPAM", "here"});
  EXPECT_EQ(r.output, "3\t7\tspam\treject\tads\nverdict reject\n");
  r = kw({"--server", server, "rm", "chat", "spam"});
  EXPECT_EQ(r.output, "version 2 changed 1\n");
  r = kw({"--server", server, "add", "bad{name}", "x"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.output, HasSubstr("heraldd answered 400: dictionary name has a byte outside"));
}

TEST(KwCli, AgainstRedisSharedWithHeraldd) {
  RedisServer server;
  const std::string redis = "127.0.0.1:" + std::to_string(server.port());
  auto r = kw({"--redis", redis, "add", "mod", "casino", "--action", "mask"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("changed 1"));
  // heraldd pointed at the same Redis sees it.
  Daemon d({"--keywords.store", "redis", "--keywords.redis.address", redis});
  ASSERT_TRUE(d.proc->wait_for_line(std::regex("redis ready"), std::chrono::seconds(10)));
  r = kw({"--server", "127.0.0.1:" + std::to_string(d.port), "match", "mod", "a casino"});
  EXPECT_EQ(r.output, "2\t8\tcasino\tmask\t\nverdict mask\n") << r.output;
  r = kw({"--redis", redis, "ls", "mod"});
  EXPECT_EQ(r.output, "casino\tmask\t\n");
  server.kill();
  r = kw({"--redis", redis, "ls", "mod"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.output, HasSubstr("redis unavailable at " + redis));
}

// Dictionaries written by the CLI into a Redis Cluster (through one node)
// are found by heraldd pointed at another node of it
// (keywords.redis.topology = cluster): both route each dictionary to the
// master of its slot.
TEST(KwCli, AgainstARedisClusterSharedWithHeraldd) {
  RedisCluster rc;
  const std::string first = "127.0.0.1:" + std::to_string(rc.nodes[0]->port());
  const std::string second = "127.0.0.1:" + std::to_string(rc.nodes[1]->port());
  for (int i = 0; i < 6; ++i) {
    auto r = kw({"--redis", first, "--redis-topology", "cluster", "add", "d" + std::to_string(i),
                 "word" + std::to_string(i)});
    ASSERT_EQ(r.exit_code, 0) << r.output;
  }
  EXPECT_GE(rc.masters_holding_keys(), 2);
  Daemon d({"--keywords.store", "redis", "--keywords.redis.topology", "cluster",
            "--keywords.redis.address", second});
  ASSERT_TRUE(d.proc->wait_for_line(std::regex("listening"), std::chrono::seconds(10)));
  for (int i = 0; i < 6; ++i) {
    const std::string n = std::to_string(i);
    auto r =
        kw({"--server", "127.0.0.1:" + std::to_string(d.port), "match", "d" + n, "a word" + n});
    EXPECT_EQ(r.output, "2\t7\tword" + n + "\tflag\t\nverdict flag\n") << r.output;
  }
  // A plain server named as a cluster node: the CLI says which key is wrong.
  RedisServer plain;
  auto r = kw({"--redis", "127.0.0.1:" + std::to_string(plain.port()), "--redis-topology",
               "cluster", "ls", "d0"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.output, HasSubstr("keywords.redis.address"));
}

TEST(KwCli, AgainstARedisThatRequiresAPassword) {
  RedisServer server(
      {"--user", "alice", "on", ">alice-pw", "~*", "&*", "+@all", "--user", "default", "off"},
      {"alice", "alice-pw"});
  const std::string redis = "127.0.0.1:" + std::to_string(server.port());
  const std::vector<std::string> env = {"HERALD_KEYWORDS_REDIS_USERNAME=alice",
                                        "HERALD_KEYWORDS_REDIS_PASSWORD=alice-pw"};
  auto r = run({HERALD_PATH, "kw", "--redis", redis, "add", "mod", "casino"}, env);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("changed 1"));
  r = run({HERALD_PATH, "kw", "--redis", redis, "ls", "mod"},
          {"HERALD_KEYWORDS_REDIS_USERNAME=alice", "HERALD_KEYWORDS_REDIS_PASSWORD=wrong-pw"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.output, HasSubstr("WRONGPASS"));
  EXPECT_THAT(r.output, HasSubstr("HERALD_KEYWORDS_REDIS_PASSWORD"));
  EXPECT_THAT(r.output, ::testing::Not(HasSubstr("wrong-pw")));
}

TEST(KwCli, BadArguments) {
  EXPECT_EQ(kw({"--redis", "nonsense", "ls", "d"}).exit_code, 2);
  EXPECT_EQ(kw({"add", "d"}).exit_code, 2);  // no keywords
  auto r = kw({"--server", "127.0.0.1:1", "ls", "d"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.output, HasSubstr("cannot reach heraldd at 127.0.0.1:1"));
}

}  // namespace
}  // namespace herald::test
