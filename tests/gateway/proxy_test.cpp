// The rpc command through a real heraldd to a real application backend
// (support/backend.mjs, a Node.js HTTP server), spoken to by real WebSocket
// clients. Each way a backend can fail is provoked for real (a stalled
// answer, HTTP 500, a body that is not JSON, a dropped connection, a dead
// process) and must give the client the temporary error 116 naming the
// kind, bump herald_proxy_errors_total, and leave every other client
// working. Nothing here measures wall-clock time: timeouts are provoked
// with a backend that never answers, and counted, not timed.
#include <csignal>
#include <regex>

#include "proxy_backend.hpp"
#include "support/eventually.hpp"

namespace herald::test {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

std::vector<std::string> flags_for(const Backend& b, std::vector<std::string> more = {}) {
  std::vector<std::string> f{"--proxy.rpc_url", b.rpc_url()};
  f.insert(f.end(), more.begin(), more.end());
  return f;
}

std::string rpc_cmd(std::uint32_t id, const std::string& method, const std::string& data = "") {
  std::string cmd = R"({"id":)" + std::to_string(id) + R"(,"rpc":{"method":")" + method + "\"";
  if (!data.empty()) cmd += R"(,"data":)" + data;
  return cmd + "}}";
}

std::string rpc(WsClient& c, std::uint32_t id, const std::string& method,
                const std::string& data = "") {
  auto r = request(c, id, rpc_cmd(id, method, data));
  EXPECT_TRUE(r) << "no reply to rpc " << method;
  return r.value_or("");
}

double errors(const Daemon& d, const std::string& kind) {
  return proxy_errors(d, "rpc", kind);
}

// Expects the temporary backend error naming `kind`.
void expect_backend_unavailable(const std::string& reply, const std::string& kind) {
  EXPECT_EQ(json_uint(reply, "/error/code"), 116u) << reply;
  EXPECT_THAT(json_str(reply, "/error/message").value_or(""), StartsWith(kind + ": rpc backend"))
      << reply;
}

TEST(ProxyRpc, TheBackendsResultIsRelayed) {
  Backend backend;
  Daemon d(flags_for(backend));
  auto c = connect_as(d.port, "alice");
  EXPECT_EQ(rpc(*c, 2, "echo", R"({"a": [1, 2], "s": "\u00e9"})"),
            R"({"id":2,"result":{"data":{"a":[1,2],"s":"é"}}})");
  EXPECT_EQ(rpc(*c, 3, "rewrite", "7"), R"({"id":3,"result":{"data":{"rewritten":7}}})");
  EXPECT_EQ(rpc(*c, 4, "echo"), R"({"id":4,"result":{}})");  // no data: none sent
  // The backend learns who asked: the connection's user and client id.
  auto who = rpc(*c, 5, "whoami");
  EXPECT_EQ(json_str(who, "/result/data/user"), "alice") << who;
  EXPECT_EQ(json_str(who, "/result/data/client").value_or("").size(), 16u) << who;
}

TEST(ProxyRpc, TheBackendsErrorIsRelayed) {
  Backend backend;
  Daemon d(flags_for(backend));
  auto c = connect_as(d.port, "alice");
  EXPECT_EQ(rpc(*c, 2, "error"), R"({"id":2,"error":{"code":1001,"message":"not allowed"}})");
  // A code below 1000 would pass for one of Herald's own: a bad answer.
  expect_backend_unavailable(rpc(*c, 3, "low_code"), "bad_answer");
  EXPECT_EQ(errors(d, "bad_answer"), 1);
  expect_alive(*c, 4);
}

TEST(ProxyRpc, TheBackendsDisconnectClosesTheClient) {
  Backend backend;
  Daemon d(flags_for(backend));
  auto c = connect_as(d.port, "alice");
  auto bystander = connect_as(d.port, "bob");
  c->send(rpc_cmd(2, "disconnect"));
  auto push = c->next();
  ASSERT_TRUE(push);
  EXPECT_EQ(*push, R"({"disconnect":{"code":4501,"reason":"banned","reconnect":false}})");
  auto closed = c->wait_closed();
  ASSERT_TRUE(closed);
  EXPECT_EQ(closed->code, 4501);
  EXPECT_EQ(closed->reason, "banned");
  expect_alive(*bystander, 2);
}

TEST(ProxyRpc, EachFailureIsATemporaryErrorAndCounted) {
  Backend backend;
  Daemon d(flags_for(backend, {"--proxy.timeout", "2s"}));
  auto c = connect_as(d.port, "alice");
  auto bystander = connect_as(d.port, "bob");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"stall", "timeout"},
      {"status500", "bad_status"},
      {"invalid", "bad_answer"},
      {"hangup", "unavailable"},
  };
  std::uint32_t id = 2;
  for (const auto& [method, kind] : cases) {
    SCOPED_TRACE(method);
    expect_backend_unavailable(rpc(*c, id++, method), kind);
    EXPECT_EQ(errors(d, kind), 1);
    expect_alive(*bystander, id++);
    // The client that hit the failure goes on too, with the same backend.
    EXPECT_EQ(rpc(*c, id, "echo", "1"),
              R"({"id":)" + std::to_string(id) + R"(,"result":{"data":1}})");
    ++id;
  }
  EXPECT_EQ(metric_value(http_get("127.0.0.1", d.port, "/metrics").body,
                         R"(herald_proxy_requests_total{hook="rpc"})"),
            8);
}

TEST(ProxyRpc, ADeadBackendIsUnavailable) {
  Backend backend;
  Daemon d(flags_for(backend));
  auto c = connect_as(d.port, "alice");
  auto bystander = connect_as(d.port, "bob");
  expect_backend_unavailable(rpc(*c, 2, "die"), "unavailable");  // exits mid-request
  ASSERT_TRUE(backend.proc->wait_exit(std::chrono::seconds(10)));
  expect_backend_unavailable(rpc(*c, 3, "echo"), "unavailable");  // connection refused
  EXPECT_EQ(errors(d, "unavailable"), 2);
  expect_alive(*bystander, 2);
  expect_alive(*c, 4);
}

TEST(ProxyRpc, OverMaxInFlightIsBusyAtOnce) {
  Backend backend;
  // A long timeout: the stalled request holds the one slot for the whole
  // test, so the second rpc can only be answered by the cap.
  Daemon d(flags_for(backend, {"--proxy.max_in_flight", "1", "--proxy.timeout", "60s"}));
  auto c = connect_as(d.port, "alice");
  auto other = connect_as(d.port, "bob");
  c->send(rpc_cmd(2, "stall"));
  expect_alive(*c, 3);  // commands run in order: the stall is in flight now
  expect_backend_unavailable(rpc(*c, 4, "echo"), "busy");
  expect_backend_unavailable(rpc(*other, 2, "echo"), "busy");  // the cap is the node's
  EXPECT_EQ(errors(d, "busy"), 2);
  expect_alive(*other, 3);
}

TEST(ProxyRpc, KeepAliveReusesOneConnectionPerShard) {
  Backend backend;
  Daemon d(flags_for(backend, {"--server.threads", "1"}));
  auto c = connect_as(d.port, "alice");
  for (std::uint32_t id = 2; id < 22; ++id) {
    EXPECT_EQ(rpc(*c, id, "echo", "0"),
              R"({"id":)" + std::to_string(id) + R"(,"result":{"data":0}})");
  }
  EXPECT_EQ(backend.stat("requests"), 20u);
  EXPECT_EQ(backend.stat("connections"), 1u);
}

TEST(ProxyRpc, AClientGoneWhileItsRpcIsInFlightCostsNothing) {
  Backend backend;
  Daemon d(flags_for(backend, {"--proxy.timeout", "2s"}));
  {
    auto c = connect_as(d.port, "alice");
    c->send(rpc_cmd(2, "stall"));
    expect_alive(*c, 3);  // the rpc is in flight
  }                       // the client closes
  auto bystander = connect_as(d.port, "bob");
  // The request times out with nobody to answer.
  EXPECT_TRUE(eventually([&] { return errors(d, "timeout") >= 1; }));
  EXPECT_EQ(errors(d, "timeout"), 1);
  expect_alive(*bystander, 2);
  EXPECT_EQ(rpc(*bystander, 3, "echo", "1"), R"({"id":3,"result":{"data":1}})");
  EXPECT_FALSE(d.proc->wait_exit(std::chrono::milliseconds(0))) << d.proc->output();
}

TEST(ProxyRpc, WithoutARpcUrlRpcIsNotAvailable) {
  Daemon d;
  auto c = connect_as(d.port, "alice");
  auto r = rpc(*c, 2, "echo");
  EXPECT_EQ(json_uint(r, "/error/code"), 108u) << r;
  EXPECT_THAT(r, HasSubstr("proxy.rpc_url"));
  // method is required.
  auto bad = request(*c, 3, R"({"id":3,"rpc":{"data":1}})");
  ASSERT_TRUE(bad);
  EXPECT_EQ(json_uint(*bad, "/error/code"), 107u) << *bad;
}

TEST(ProxyRpc, AnHttpsUrlStopsStartNamingTheKey) {
  auto r = run({HERALDD_PATH, "--server.listen", "127.0.0.1:0", "--proxy.rpc_url",
                "https://127.0.0.1:3000/rpc"});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("proxy.rpc_url"));
  EXPECT_THAT(r.output, HasSubstr("https"));
}

TEST(ProxyHooks, ANamespaceAskingForAHookWithoutItsUrlStopsStart) {
  std::string conf =
      write_temp_file("publish-proxy.toml", "[namespaces.vip]\npublish_proxy = true\n");
  auto r = run({HERALDD_PATH, "--config", conf, "--server.listen", "127.0.0.1:0"});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("namespaces.vip.publish_proxy = true needs proxy.publish_url"));
  auto s = run({HERALDD_PATH, "--server.listen", "127.0.0.1:0", "--rooms.subscribe_proxy", "true"});
  EXPECT_EQ(s.exit_code, 2) << s.output;
  EXPECT_THAT(s.output, HasSubstr("rooms.subscribe_proxy = true needs proxy.subscribe_url"));
}

TEST(ProxyHooks, EveryHookUrlIsCheckedAtStart) {
  for (const char* key : {"--proxy.connect_url", "--proxy.subscribe_url", "--proxy.publish_url",
                          "--proxy.refresh_url"}) {
    auto r = run({HERALDD_PATH, "--server.listen", "127.0.0.1:0", key, "ftp://127.0.0.1/x"});
    EXPECT_EQ(r.exit_code, 2) << key << ": " << r.output;
    EXPECT_THAT(r.output, HasSubstr(std::string(key).substr(2))) << r.output;
  }
}

}  // namespace
}  // namespace herald::test
