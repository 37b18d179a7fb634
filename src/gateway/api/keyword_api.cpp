#include "gateway/api/keyword_api.hpp"

#include <boost/asio/post.hpp>

#include "core/json.hpp"
#include "gateway/api/http_api.hpp"
#include "gateway/api/keyword_requests.hpp"
#include "gateway/shard_pool.hpp"

namespace herald::gateway::api {
namespace beast_http = boost::beast::http;
namespace kw = match::store;
using Respond = http::HttpRouter::Respond;

namespace {

constexpr std::size_t kDictSegment = 2;  // /api/keywords/{dict}/...

http::HttpResponse failure(const std::string& error, bool unavailable, bool invalid) {
  if (unavailable)
    return http::make_error_response(beast_http::status::service_unavailable, "unavailable", error);
  if (invalid)
    return http::make_error_response(beast_http::status::bad_request, "bad_request", error);
  return http::make_error_response(beast_http::status::internal_server_error, "internal", error);
}

void write_reply(const kw::WriteResult& r, const Respond& respond) {
  // A write fails before Redis only when the request was wrong.
  if (!r.ok()) return respond(failure(r.error, r.unavailable, !r.unavailable));
  respond(json_ok("{\"version\":" + std::to_string(r.version) +
                  ",\"changed\":" + std::to_string(r.changed) + "}"));
}

void append_entry(std::string& out, const kw::Entry& e) {
  out += "{\"keyword\":";
  json::append_string(out, e.keyword);
  out += ",\"action\":";
  json::append_string(out, kw::action_name(e.action));
  out += ",\"category\":";
  json::append_string(out, e.category);
  out += '}';
}

// Moderation's answer for a text: the strongest action among the hits.
std::string_view verdict(const std::vector<kw::Hit>& hits) {
  if (hits.empty()) return "allow";
  kw::Action strongest = hits.front().action;
  for (const kw::Hit& h : hits)
    if (kw::stricter(h.action, strongest)) strongest = h.action;
  return kw::action_name(strongest);
}

template <class F>
http::HttpRouter::AsyncHandler guarded(ServerState& state, F handler) {
  return [&state, handler](const http::HttpRequest& req, unsigned shard, Respond respond) {
    if (!admit_api_request(state, req, respond)) return;
    handler(req, std::string(http::path_segment(req.target(), kDictSegment)),
            respond_on_shard(state, shard, std::move(respond)));
  };
}

}  // namespace

void register_keyword_api(http::HttpRouter& router, ServerState& state, kw::Store& store) {
  router.add_async(
      beast_http::verb::post, "/api/keywords/{dict}/add",
      guarded(state, [&store](const http::HttpRequest& req, std::string dict, Respond respond) {
        auto entries = parse_keyword_add(req.body());
        if (!entries) return respond(failure(entries.error(), false, true));
        store.add_many(
            std::move(dict), std::move(entries).value(),
            [respond = std::move(respond)](const kw::WriteResult& r) { write_reply(r, respond); });
      }));
  router.add_async(
      beast_http::verb::post, "/api/keywords/{dict}/remove",
      guarded(state, [&store](const http::HttpRequest& req, std::string dict, Respond respond) {
        auto keywords = parse_keyword_remove(req.body());
        if (!keywords) return respond(failure(keywords.error(), false, true));
        store.remove_many(
            std::move(dict), std::move(keywords).value(),
            [respond = std::move(respond)](const kw::WriteResult& r) { write_reply(r, respond); });
      }));
  router.add_async(
      beast_http::verb::post, "/api/keywords/{dict}/flush",
      guarded(state, [&store](const http::HttpRequest&, std::string dict, Respond respond) {
        store.flush(std::move(dict), [respond = std::move(respond)](const kw::WriteResult& r) {
          write_reply(r, respond);
        });
      }));
  router.add_async(
      beast_http::verb::get, "/api/keywords/{dict}",
      guarded(state, [&store](const http::HttpRequest&, std::string dict, Respond respond) {
        store.engine(std::move(dict), [respond = std::move(respond)](const kw::EngineResult& r) {
          if (!r.ok()) return respond(failure(r.error, r.unavailable, !r.unavailable));
          std::string out =
              "{\"version\":" + std::to_string(r.engine->version()) + ",\"keywords\":[";
          bool first = true;
          for (const kw::Entry& e : r.engine->entries()) {
            if (!first) out += ',';
            first = false;
            append_entry(out, e);
          }
          respond(json_ok(out + "]}"));
        });
      }));
  router.add_async(
      beast_http::verb::post, "/api/keywords/{dict}/match",
      guarded(state, [&store](const http::HttpRequest& req, std::string dict, Respond respond) {
        auto asked = parse_keyword_match(req.body());
        if (!asked) return respond(failure(asked.error(), false, true));
        store.engine(std::move(dict), [respond = std::move(respond),
                                       text = std::move(asked).value()](const kw::EngineResult& r) {
          if (!r.ok()) return respond(failure(r.error, r.unavailable, !r.unavailable));
          std::vector<kw::Hit> hits;
          r.engine->find(text, hits);
          std::string out = "{\"version\":" + std::to_string(r.engine->version()) + ",\"verdict\":";
          json::append_string(out, verdict(hits));
          out += ",\"matches\":[";
          for (std::size_t i = 0; i < hits.size(); ++i) {
            if (i) out += ',';
            out += "{\"keyword\":";
            json::append_string(out, hits[i].keyword);
            out += ",\"action\":";
            json::append_string(out, kw::action_name(hits[i].action));
            out += ",\"category\":";
            json::append_string(out, hits[i].category);
            out += ",\"start\":" + std::to_string(hits[i].start) +
                   ",\"end\":" + std::to_string(hits[i].end) + "}";
          }
          out += "],\"masked\":";
          json::append_string(out, r.engine->mask(text));
          respond(json_ok(out + "}"));
        });
      }));
}

void register_keyword_metrics(metrics::Registry& registry, const kw::Store& store) {
  const kw::Stats& s = store.stats();
  auto counter = [&](const char* name, const char* help, const std::atomic<std::uint64_t>& v,
                     const metrics::Labels& labels = {}) {
    registry.callback(
        name, help, [&v] { return static_cast<double>(v.load(std::memory_order_relaxed)); }, true,
        labels);
  };
  counter("herald_keyword_searches_total",
          "Keyword searches, by whether the engine was warm (hit: 0 round trips) or loaded first",
          s.hits, {{"result", "hit"}});
  counter("herald_keyword_searches_total",
          "Keyword searches, by whether the engine was warm (hit: 0 round trips) or loaded first",
          s.misses, {{"result", "miss"}});
  counter("herald_keyword_rebuilds_total", "Keyword engines built and swapped in", s.rebuilds);
  counter("herald_keyword_rebuild_failures_total",
          "Keyword engine builds or loads that failed (the last good engine kept serving)",
          s.rebuild_failures);
  counter("herald_keyword_invalidations_total",
          "Peer writes acted on (by pub/sub, the backstop poll or a reconnect check)",
          s.invalidations);
  registry.callback(
      "herald_keyword_rebuild_seconds_total", "Time spent building keyword engines",
      [&s] {
        return static_cast<double>(s.rebuild_ns_total.load(std::memory_order_relaxed)) / 1e9;
      },
      true);
  registry.callback(
      "herald_keyword_last_rebuild_seconds", "Duration of the last engine build", [&s] {
        return static_cast<double>(s.last_rebuild_ns.load(std::memory_order_relaxed)) / 1e9;
      });
  registry.callback(
      "herald_keyword_invalidation_lag_seconds",
      "From a peer's write to the swap of the engine that includes it, for the last pub/sub "
      "invalidation (-1: none yet)",
      [&s] {
        const auto ms = s.last_invalidation_lag_ms.load(std::memory_order_relaxed);
        return ms < 0 ? -1.0 : static_cast<double>(ms) / 1e3;
      });
  registry.callback(
      "herald_redis_round_trips_total",
      "Round trips to Redis (a pipeline or transaction counts once)",
      [&store] { return static_cast<double>(store.round_trips()); }, true);
}

}  // namespace herald::gateway::api
