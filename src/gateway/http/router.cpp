#include "gateway/http/router.hpp"

#include <boost/beast/http/field.hpp>

#include "core/json.hpp"

namespace herald::gateway::http {
namespace beast_http = boost::beast::http;

HttpResponse make_error_response(beast_http::status status, std::string_view code,
                                 std::string_view message, unsigned version) {
  std::string body = R"({"error":{"code":)";
  json::append_string(body, code);
  body += R"(,"message":)";
  json::append_string(body, message);
  body += "}}\n";
  return make_text_response(status, std::move(body), "application/json", version);
}

HttpResponse make_text_response(beast_http::status status, std::string body,
                                std::string_view content_type, unsigned version) {
  HttpResponse res{status, version};
  res.set(beast_http::field::server, "herald");
  res.set(beast_http::field::content_type, content_type);
  // Every body is what its type says: a browser must not guess otherwise
  // (a JSON error echoing user text must never run as HTML).
  res.set("X-Content-Type-Options", "nosniff");
  res.body() = std::move(body);
  res.prepare_payload();
  return res;
}

namespace {

// Whether `path` fits `pattern`, segment by segment; "{...}" fits any
// non-empty segment.
bool path_matches(std::string_view pattern, std::string_view path) {
  if (pattern.find('{') == std::string_view::npos) return pattern == path;
  for (;;) {
    const std::size_t ps = pattern.find('/'), ts = path.find('/');
    std::string_view pseg = pattern.substr(0, ps), tseg = path.substr(0, ts);
    const bool wildcard = pseg.size() >= 2 && pseg.front() == '{' && pseg.back() == '}';
    if (wildcard ? tseg.empty() : pseg != tseg) return false;
    if (ps == std::string_view::npos || ts == std::string_view::npos) {
      return ps == std::string_view::npos && ts == std::string_view::npos;
    }
    pattern.remove_prefix(ps + 1);
    path.remove_prefix(ts + 1);
  }
}

}  // namespace

std::string_view path_segment(std::string_view target, std::size_t index) {
  std::string_view path = target.substr(0, target.find('?'));
  if (path.starts_with('/')) path.remove_prefix(1);
  for (std::size_t i = 0;; ++i) {
    const std::size_t slash = path.find('/');
    if (i == index) return path.substr(0, slash);
    if (slash == std::string_view::npos) return {};
    path.remove_prefix(slash + 1);
  }
}

void HttpRouter::add(beast_http::verb method, std::string path, Handler handler) {
  add_async(method, std::move(path),
            [handler = std::move(handler)](const HttpRequest& req, unsigned,
                                           const Respond& respond) { respond(handler(req)); });
}

void HttpRouter::add_async(beast_http::verb method, std::string path, AsyncHandler handler) {
  routes_.push_back(Route{method, std::move(path), std::move(handler)});
}

void HttpRouter::dispatch(const HttpRequest& request, unsigned shard, Respond respond) const {
  std::string_view target = request.target();
  std::string_view path = target.substr(0, target.find('?'));
  std::string allow;
  for (const Route& r : routes_) {
    if (!path_matches(r.path, path)) continue;
    if (r.method == request.method()) return r.handler(request, shard, std::move(respond));
    if (!allow.empty()) allow += ", ";
    allow += beast_http::to_string(r.method);
  }
  std::string what = std::string(request.method_string()) + " " + std::string(path);
  if (!allow.empty()) {
    HttpResponse res = make_error_response(
        beast_http::status::method_not_allowed, "method_not_allowed",
        "method not allowed: " + what + " (allowed: " + allow + ")", request.version());
    res.set(beast_http::field::allow, allow);
    return respond(std::move(res));
  }
  respond(make_error_response(beast_http::status::not_found, "not_found", "no route for " + what,
                              request.version()));
}

}  // namespace herald::gateway::http
