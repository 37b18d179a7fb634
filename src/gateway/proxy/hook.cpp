#include "gateway/proxy/hook.hpp"

#include <boost/asio/io_context.hpp>

#include <stdexcept>

namespace herald::gateway::proxy {
namespace {

BackendUrl parse_or_throw(std::string_view key, std::string_view text) {
  auto parsed = parse_backend_url(key, text);
  if (auto* error = std::get_if<std::string>(&parsed)) throw std::runtime_error(*error);
  return std::get<BackendUrl>(std::move(parsed));
}

}  // namespace

Hook::Hook(std::string hook_name, std::string_view key, std::string_view url_text,
           std::chrono::milliseconds request_timeout, metrics::Registry& registry)
    : name(std::move(hook_name)), url(parse_or_throw(key, url_text)), timeout(request_timeout) {
  boost::asio::io_context ctx;
  boost::asio::ip::tcp::resolver resolver(ctx);
  boost::system::error_code ec;
  auto results = resolver.resolve(url.host, url.port, ec);
  if (ec || results.empty()) {
    throw std::runtime_error(std::string(key) + ": cannot resolve host '" + url.host +
                             "': " + (ec ? ec.message() : "no address") +
                             " (check the name, or use an IP address)");
  }
  for (const auto& r : results) endpoints.push_back(r.endpoint());

  requests = &registry.counter("herald_proxy_requests_total",
                               "Requests to the application backend, by hook", {{"hook", name}});
  for (auto f : {Failure::timeout, Failure::unavailable, Failure::bad_status, Failure::bad_answer,
                 Failure::busy}) {
    // Safety: Failure's five values are 0..4, the indexes of errors.
    errors[static_cast<std::size_t>(f)] = &registry.counter(
        "herald_proxy_errors_total",
        "Backend requests that failed (the client got error 116), by hook and kind",
        {{"hook", name}, {"kind", std::string(failure_kind(f))}});
  }
  duration = &registry.histogram("herald_proxy_duration_seconds",
                                 "Backend request time, from sending to the answer or failure",
                                 metrics::exponential_buckets(0.0005, 2, 16), {{"hook", name}});
}

}  // namespace herald::gateway::proxy
