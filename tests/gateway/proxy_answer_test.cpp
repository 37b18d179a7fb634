// The backend hooks' pure pieces (gateway/proxy/): what a backend's answer
// means (table-driven: every shape and every way of getting it wrong), the
// hook URL accepted at start-up, each hook's request and result,
// and the node-wide in-flight cap.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "gateway/proxy/backend_answer.hpp"
#include "gateway/proxy/backend_url.hpp"
#include "gateway/proxy/connect_hook.hpp"
#include "gateway/proxy/in_flight_limit.hpp"
#include "gateway/proxy/refresh_hook.hpp"
#include "gateway/proxy/room_hooks.hpp"

namespace herald::gateway::proxy {
namespace {

// What a classified answer is, as one string the table can name:
// "result <json>", "error <code> <message>", "disconnect <code> <reason>",
// "failure <kind>".
std::string describe(const BackendAnswer& a) {
  if (const auto* r = std::get_if<ResultAnswer>(&a)) return "result " + r->json;
  if (const auto* e = std::get_if<ErrorAnswer>(&a))
    return "error " + std::to_string(e->code) + " " + e->message;
  if (const auto* d = std::get_if<DisconnectAnswer>(&a))
    return "disconnect " + std::to_string(d->code) + " " + d->reason;
  return "failure " + std::string(failure_kind(std::get<FailureAnswer>(a).kind));
}

struct AnswerCase {
  const char* name;
  unsigned status;
  const char* body;
  const char* expected;
};

const std::vector<AnswerCase> kAnswers = {
    {"result", 200, R"({"result":{"data":{"a":[1, 2]}}})", R"(result {"data":{"a":[1,2]}})"},
    {"empty_result", 200, R"({"result":{}})", "result {}"},
    {"other_2xx", 201, R"({"result":{}})", "result {}"},
    {"error", 200, R"({"error":{"code":1001,"message":"no"}})", "error 1001 no"},
    {"error_without_message", 200, R"({"error":{"code":65535}})", "error 65535 "},
    {"error_code_of_herald", 200, R"({"error":{"code":101,"message":"x"}})", "failure bad_answer"},
    {"error_code_too_big", 200, R"({"error":{"code":65536,"message":"x"}})", "failure bad_answer"},
    {"error_code_negative", 200, R"({"error":{"code":-1001}})", "failure bad_answer"},
    {"error_code_string", 200, R"({"error":{"code":"1001"}})", "failure bad_answer"},
    {"error_message_number", 200, R"({"error":{"code":1001,"message":5}})", "failure bad_answer"},
    {"disconnect", 200, R"({"disconnect":{"code":4501,"reason":"banned"}})",
     "disconnect 4501 banned"},
    {"disconnect_code_of_herald", 200, R"({"disconnect":{"code":3500,"reason":"x"}})",
     "failure bad_answer"},
    {"disconnect_code_5000", 200, R"({"disconnect":{"code":5000}})", "failure bad_answer"},
    {"status_500", 500, R"({"result":{}})", "failure bad_status"},
    {"status_404", 404, "", "failure bad_status"},
    {"status_302", 302, R"({"result":{}})", "failure bad_status"},
    {"not_json", 200, R"({"result": not json)", "failure bad_answer"},
    {"empty_body", 200, "", "failure bad_answer"},
    {"array", 200, "[1]", "failure bad_answer"},
    {"two_keys", 200, R"({"result":{},"error":{"code":1001}})", "failure bad_answer"},
    {"no_key", 200, "{}", "failure bad_answer"},
    {"unknown_key", 200, R"({"answer":{}})", "failure bad_answer"},
    {"result_not_object", 200, R"({"result":5})", "failure bad_answer"},
};

TEST(BackendAnswer, EveryCaseClassifies) {
  std::set<std::string> names;
  AnswerClassifier classifier;
  for (const AnswerCase& c : kAnswers) {
    EXPECT_TRUE(names.insert(c.name).second) << "duplicate case name " << c.name;
    EXPECT_EQ(describe(classifier.classify(c.status, c.body)), c.expected) << c.name;
  }
}

TEST(BackendAnswer, AFailureNamesWhatWasWrong) {
  AnswerClassifier classifier;
  const auto a = classifier.classify(503, "");
  ASSERT_TRUE(std::holds_alternative<FailureAnswer>(a));
  EXPECT_EQ(std::get<FailureAnswer>(a).detail, "HTTP 503");
}

TEST(BackendAnswer, ReconnectFollowsTheCodeRange) {
  EXPECT_TRUE(backend_disconnect_reconnects(4000));
  EXPECT_TRUE(backend_disconnect_reconnects(4499));
  EXPECT_FALSE(backend_disconnect_reconnects(4500));
  EXPECT_FALSE(backend_disconnect_reconnects(4999));
}

struct UrlCase {
  const char* name;
  const char* text;
  const char* expected;  // "host port target host_header", or "error: <part of the message>"
};

const std::vector<UrlCase> kUrls = {
    {"full", "http://127.0.0.1:3000/herald/rpc", "127.0.0.1 3000 /herald/rpc 127.0.0.1:3000"},
    {"no_port", "http://backend.local/rpc", "backend.local 80 /rpc backend.local"},
    {"no_path", "http://backend:8080", "backend 8080 / backend:8080"},
    {"query", "http://b:1?x=1", "b 1 /?x=1 b:1"},
    {"ipv6", "http://[::1]:3000/rpc", "::1 3000 /rpc [::1]:3000"},
    {"https", "https://backend/rpc", "error: is https"},
    {"no_scheme", "backend:3000/rpc", "error: does not start with http://"},
    {"no_host", "http://:3000/rpc", "error: has no host"},
    {"port_zero", "http://b:0/", "error: outside 1..65535"},
    {"port_big", "http://b:65536/", "error: outside 1..65535"},
    {"port_word", "http://b:http/", "error: not a number"},
    {"empty_port", "http://b:/", "error: empty port"},
    {"credentials", "http://u:p@b/", "error: holds credentials"},
    {"bare_ipv6", "http://::1:3000/", "error: without []"},
};

TEST(BackendUrl, EveryCaseParses) {
  std::set<std::string> names;
  for (const UrlCase& c : kUrls) {
    EXPECT_TRUE(names.insert(c.name).second) << "duplicate case name " << c.name;
    auto parsed = parse_backend_url("proxy.rpc_url", c.text);
    std::string got;
    if (const auto* u = std::get_if<BackendUrl>(&parsed)) {
      got = u->host + " " + u->port + " " + u->target + " " + u->host_header;
      EXPECT_EQ(got, c.expected) << c.name;
    } else {
      const std::string& message = std::get<std::string>(parsed);
      const std::string want = std::string(c.expected);
      ASSERT_TRUE(want.starts_with("error: ")) << c.name << ": " << message;
      EXPECT_NE(message.find(want.substr(7)), std::string::npos) << c.name << ": " << message;
      EXPECT_TRUE(message.starts_with("proxy.rpc_url: ")) << message;
    }
  }
}

// A connect result as one string: "user|info|expire_at|data|rooms,..." or
// "wrong: <why>".
std::string describe_grant(std::string_view result) {
  auto read = read_connect_result(result);
  if (auto* why = std::get_if<std::string>(&read)) return "wrong: " + *why;
  const auto& g = std::get<ConnectGrant>(read);
  std::string out = g.user + "|" + g.info_json + "|" +
                    (g.expire_at ? std::to_string(*g.expire_at) : "") + "|" + g.data_json + "|";
  for (const auto& r : g.rooms) out += r + ",";
  return out;
}

TEST(ConnectResult, EveryCaseReads) {
  const std::vector<std::pair<const char*, const char*>> cases = {
      {R"({"user":"alice"})", "alice||||"},
      {R"({"user":"a","info":{"x": 1},"expire_at":17,"data":[1, 2],"rooms":["b","c","b"]})",
       R"(a|{"x":1}|17|[1,2]|b,c,)"},
      {R"({})", "wrong: result.user must be a string of 1 to 64 bytes"},
      {R"({"user":""})", "wrong: result.user must be a string of 1 to 64 bytes"},
      {R"({"user":7})", "wrong: result.user must be a string of 1 to 64 bytes"},
      {R"({"user":"a","info":[1]})", "wrong: result.info must be an object"},
      {R"({"user":"a","expire_at":0})",
       "wrong: result.expire_at must be a positive integer (Unix seconds)"},
      {R"({"user":"a","expire_at":"1"})",
       "wrong: result.expire_at must be a positive integer (Unix seconds)"},
      {R"({"user":"a","rooms":"x"})", "wrong: result.rooms must be an array"},
      {R"({"user":"a","rooms":[1]})", "wrong: result.rooms must hold strings"},
      {"[]", "wrong: result is not a JSON object"},
  };
  for (const auto& [in, want] : cases) EXPECT_EQ(describe_grant(in), want) << in;
  EXPECT_EQ(describe_grant(R"({"user":")" + std::string(65, 'u') + R"("})"),
            "wrong: result.user must be a string of 1 to 64 bytes");
  EXPECT_EQ(describe_grant(R"({"user":"a","rooms":["a b"]})").rfind("wrong: result.rooms: ", 0),
            0u);
}

TEST(ConnectRequest, HeadersAreListedTrimmedAndLowerCased) {
  EXPECT_EQ(parse_header_list(" Cookie,AUTHORIZATION ,, x-real-ip,cookie, X-Forwarded-For"),
            (std::vector<std::string>{"cookie", "authorization", "x-real-ip"}));
  EXPECT_TRUE(parse_header_list("").empty());
  http::HttpRequest req;
  req.set("Cookie", "s=1");
  req.set("X-Forwarded-For", "203.0.113.9");
  req.set("X-Other", "no");
  EXPECT_EQ(forwarded_headers_json(req, {"cookie", "authorization"}, "127.0.0.1"),
            R"({"cookie":"s=1","x-forwarded-for":"203.0.113.9, 127.0.0.1"})");
  EXPECT_EQ(forwarded_headers_json(http::HttpRequest{}, {"cookie"}, "::1"),
            R"({"x-forwarded-for":"::1"})");
  EXPECT_EQ(connect_request_json("c1", "{}", ""),
            R"({"client":"c1","transport":"websocket","protocol":"json","headers":{}})");
  EXPECT_EQ(connect_request_json("c1", "{}", "[1]"),
            R"({"client":"c1","transport":"websocket","protocol":"json","headers":{},"data":[1]})");
}

TEST(RoomHooks, RequestsNameTheClientAndPassDataAsIs) {
  EXPECT_EQ(client_request_json("c1", "al\"ice", "room", "chat:a", R"({"x":[1]})", ""),
            R"({"client":"c1","user":"al\"ice","room":"chat:a","data":{"x":[1]}})");
  EXPECT_EQ(client_request_json("c1", "u", "method", "m", "", ""),
            R"({"client":"c1","user":"u","method":"m"})");
  // The connection's meta, as its token or the connect hook gave it.
  EXPECT_EQ(client_request_json("c1", "u", "method", "m", "1", R"({"tenant":"t"})"),
            R"({"client":"c1","user":"u","method":"m","data":1,"meta":{"tenant":"t"}})");
}

TEST(RoomHooks, SubscribeResultsRead) {
  auto ok = read_subscribe_result(R"({"info":{"role": "x"},"data":[1, 2]})");
  ASSERT_TRUE(std::holds_alternative<SubscribeGrant>(ok));
  EXPECT_EQ(std::get<SubscribeGrant>(ok).info_json, R"({"role":"x"})");
  EXPECT_EQ(std::get<SubscribeGrant>(ok).data_json, "[1,2]");
  auto empty = read_subscribe_result("{}");
  ASSERT_TRUE(std::holds_alternative<SubscribeGrant>(empty));
  EXPECT_TRUE(std::get<SubscribeGrant>(empty).info_json.empty());
  EXPECT_EQ(std::get<std::string>(read_subscribe_result(R"({"info":"x"})")),
            "result.info must be an object");
  EXPECT_EQ(std::get<std::string>(read_subscribe_result("[]")), "result is not a JSON object");
}

TEST(RoomHooks, PublishResultsRead) {
  auto kept = read_publish_result("{}");
  ASSERT_TRUE(std::holds_alternative<PublishGrant>(kept));
  EXPECT_FALSE(std::get<PublishGrant>(kept).data_json);
  auto replaced = read_publish_result(R"({"data":{"t": "x"},"skip_history":false})");
  ASSERT_TRUE(std::holds_alternative<PublishGrant>(replaced));
  EXPECT_EQ(std::get<PublishGrant>(replaced).data_json, R"({"t":"x"})");
  EXPECT_FALSE(std::get<PublishGrant>(replaced).skip_history);
  EXPECT_EQ(std::get<PublishGrant>(read_publish_result(R"({"data":null})")).data_json, "null");
  auto live = read_publish_result(R"({"skip_history":true})");
  ASSERT_TRUE(std::holds_alternative<PublishGrant>(live));
  EXPECT_TRUE(std::get<PublishGrant>(live).skip_history);
  EXPECT_FALSE(std::get<PublishGrant>(live).data_json);
  for (const char* wrong : {R"({"skip_history":1})", R"({"skip_history":"yes"})"}) {
    auto r = read_publish_result(wrong);
    ASSERT_TRUE(std::holds_alternative<std::string>(r)) << wrong;
    EXPECT_EQ(std::get<std::string>(r), "result.skip_history must be true or false");
  }
}

TEST(RefreshHook, RequestsAndResults) {
  EXPECT_EQ(refresh_request_json("c1", "u", R"({"cookie":"s=1"})", ""),
            R"({"client":"c1","user":"u","headers":{"cookie":"s=1"}})");
  EXPECT_EQ(refresh_request_json("c1", "u", "", ""), R"({"client":"c1","user":"u","headers":{}})");
  EXPECT_EQ(refresh_request_json("c1", "u", "", "[7]"),
            R"({"client":"c1","user":"u","headers":{},"meta":[7]})");
  EXPECT_EQ(std::get<RefreshGrant>(read_refresh_result(R"({"expire_at":17})")).expire_at, 17);
  EXPECT_FALSE(std::get<RefreshGrant>(read_refresh_result(R"({"expired":true})")).expire_at);
  EXPECT_EQ(
      std::get<RefreshGrant>(read_refresh_result(R"({"expired":false,"expire_at":9})")).expire_at,
      9);
  for (const char* wrong :
       {"{}", R"({"expire_at":0})", R"({"expire_at":"9"})", R"({"expired":false})",
        R"({"expired":1})", R"({"expired":true,"expire_at":9})", "[]"}) {
    EXPECT_TRUE(std::holds_alternative<std::string>(read_refresh_result(wrong))) << wrong;
  }
}

TEST(InFlightLimit, RefusesOverTheCapAndFreesWithTheTicket) {
  InFlightLimit limit(2);
  auto a = limit.try_acquire();
  auto b = limit.try_acquire();
  EXPECT_TRUE(a);
  EXPECT_TRUE(b);
  EXPECT_FALSE(limit.try_acquire());
  EXPECT_EQ(limit.in_flight(), 2u);
  a = InFlightLimit::Ticket{};
  EXPECT_EQ(limit.in_flight(), 1u);
  auto c = limit.try_acquire();
  EXPECT_TRUE(c);
  InFlightLimit::Ticket moved = std::move(c);
  EXPECT_EQ(limit.in_flight(), 2u);  // a move keeps the one slot
}

}  // namespace
}  // namespace herald::gateway::proxy
