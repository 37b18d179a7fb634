// HttpRouter: exact paths, "{name}" segments, 404/405, path_segment.
#include "gateway/http/router.hpp"

#include <gtest/gtest.h>

namespace herald::gateway {
namespace {

namespace beast_http = boost::beast::http;

struct Routed {
  http::HttpRouter router;
  std::string hit;
  unsigned status(beast_http::verb method, std::string target) {
    http::HttpRequest req{method, target, 11};
    unsigned got = 0;
    hit.clear();
    router.dispatch(req, 0, [&](http::HttpResponse res) { got = res.result_int(); });
    return got;
  }
};

TEST(HttpRouter, PatternSegmentsMatchOneNonEmptySegment) {
  Routed r;
  for (const char* path : {"/api/keywords/{dict}", "/api/keywords/{dict}/add", "/api/publish"}) {
    r.router.add(beast_http::verb::post, path, [&r, path](const http::HttpRequest&) {
      r.hit = path;
      return http::make_text_response(beast_http::status::ok, "", "text/plain", 11);
    });
  }
  EXPECT_EQ(r.status(beast_http::verb::post, "/api/keywords/chat/add?x=1"), 200u);
  EXPECT_EQ(r.hit, "/api/keywords/{dict}/add");
  EXPECT_EQ(r.status(beast_http::verb::post, "/api/keywords/chat"), 200u);
  EXPECT_EQ(r.hit, "/api/keywords/{dict}");
  EXPECT_EQ(r.status(beast_http::verb::post, "/api/publish"), 200u);
  EXPECT_EQ(r.status(beast_http::verb::post, "/api/keywords//add"), 404u);  // empty segment
  EXPECT_EQ(r.status(beast_http::verb::post, "/api/keywords/"), 404u);      // empty last segment
  EXPECT_EQ(r.status(beast_http::verb::post, "/api/keywords/a/add/x"),
            404u);  // one segment too many
  EXPECT_EQ(r.status(beast_http::verb::post, "/api/keywords/a/remove"), 404u);
  EXPECT_EQ(r.status(beast_http::verb::get, "/api/keywords/a"), 405u);
}

TEST(HttpRouter, PathSegment) {
  EXPECT_EQ(http::path_segment("/api/keywords/chat/add", 2), "chat");
  EXPECT_EQ(http::path_segment("/api/keywords/chat?x=/y", 2), "chat");
  EXPECT_EQ(http::path_segment("/api/keywords/chat", 3), "");
  EXPECT_EQ(http::path_segment("/", 0), "");
}

}  // namespace
}  // namespace herald::gateway
