// Routes HTTP requests by path and method. A path is exact, except that a
// segment written "{name}" matches any one non-empty segment (handlers read
// it with path_segment). Unknown paths get 404,
// known paths with another method get 405 with an Allow header; both carry
// the JSON error body every Herald API error uses:
//   {"error":{"code":"not_found","message":"no route for GET /x"}}
#pragma once

#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace herald::gateway::http {

using HttpRequest = boost::beast::http::request<boost::beast::http::string_body>;
using HttpResponse = boost::beast::http::response<boost::beast::http::string_body>;

// Builds a response carrying the JSON error body; `code` is a stable
// machine-readable word, `message` says what was wrong for a human.
[[nodiscard]] HttpResponse make_error_response(boost::beast::http::status status,
                                               std::string_view code, std::string_view message,
                                               unsigned version = 11);
[[nodiscard]] HttpResponse make_text_response(boost::beast::http::status status, std::string body,
                                              std::string_view content_type, unsigned version);

// Segment `index` (0-based) of the request target's path, without the query:
// for "/api/keywords/chat/add", index 2 is "chat". Empty when absent.
[[nodiscard]] std::string_view path_segment(std::string_view target, std::size_t index);

class HttpRouter {
 public:
  // Must be called exactly once, on the shard that owns the connection.
  using Respond = std::function<void(HttpResponse)>;
  // Synchronous handlers answer at once; they must not block.
  using Handler = std::function<HttpResponse(const HttpRequest&)>;
  // Asynchronous handlers answer later through `respond` (e.g. after the
  // broker replied). `shard` is the connection's shard.
  using AsyncHandler = std::function<void(const HttpRequest&, unsigned shard, Respond respond)>;

  void add(boost::beast::http::verb method, std::string path, Handler handler);
  void add_async(boost::beast::http::verb method, std::string path, AsyncHandler handler);
  void dispatch(const HttpRequest& request, unsigned shard, Respond respond) const;

 private:
  struct Route {
    boost::beast::http::verb method;
    std::string path;
    AsyncHandler handler;
  };
  std::vector<Route> routes_;
};

}  // namespace herald::gateway::http
