#include "gateway/api/http_api.hpp"

#include <boost/asio/post.hpp>
#include <boost/beast/core/string.hpp>
#include <openssl/crypto.h>
#include <simdjson.h>

#include <memory>

#include "core/json.hpp"
#include "gateway/api/json_body.hpp"
#include "gateway/client/client.hpp"
#include "gateway/protocol/encode.hpp"
#include "gateway/protocol/results.hpp"
#include "gateway/protocol/room_name.hpp"
#include "gateway/shard_pool.hpp"

namespace herald::gateway::api {
namespace beast_http = boost::beast::http;
namespace dom = simdjson::dom;
using Respond = http::HttpRouter::Respond;

http::HttpResponse broker_error(const protocol::BrokerError& e) {
  beast_http::status status = beast_http::status::bad_request;
  if (e.code == protocol::ErrorCode::limit_exceeded) status = beast_http::status::too_many_requests;
  if (e.code == protocol::ErrorCode::not_available) status = beast_http::status::not_found;
  if (e.code == protocol::ErrorCode::internal) status = beast_http::status::internal_server_error;
  if (e.code == protocol::ErrorCode::moderation_rejected)
    status = beast_http::status::unprocessable_entity;
  if (e.code == protocol::ErrorCode::unavailable || e.code == protocol::ErrorCode::too_many_rooms)
    status = beast_http::status::service_unavailable;
  return http::make_error_response(status, protocol::error_name(e.code), e.message);
}

namespace {

http::HttpResponse json_ok(std::string_view result) {
  std::string body = "{\"result\":";
  body += result;
  body += "}\n";
  return http::make_text_response(beast_http::status::ok, std::move(body), "application/json", 11);
}

http::HttpResponse bad_request(std::string_view message) {
  return http::make_error_response(beast_http::status::bad_request, "bad_request", message);
}

// The parsed body and a reader for its fields; each reader returns false and
// sets `error` (naming the field) when a field is missing or mistyped.
struct Body {
  dom::parser parser;
  dom::object obj;
  std::string error;

  bool parse(const std::string& text) {
    auto parsed = parse_json_object(parser, text);
    if (!parsed) {
      error = std::move(parsed).error();
      return false;
    }
    obj = *parsed;
    return true;
  }
  bool room(std::string& out, std::string_view field = "room") {
    std::string_view v;
    if (obj[field].get(v) != simdjson::SUCCESS) {
      error = std::string(field) + ": expected a string";
      return false;
    }
    out.assign(v);
    if (auto e = protocol::room_name_error(out)) {
      error = std::string(field) + ": " + *e;
      return false;
    }
    return true;
  }
  bool data(std::string& out) {
    dom::element e;
    if (obj["data"].get(e) != simdjson::SUCCESS) {
      error = "data: expected a JSON value";
      return false;
    }
    out = simdjson::minify(e);
    return true;
  }
  // An optional boolean: absent leaves `out` as it is.
  bool flag(std::string_view field, bool& out) {
    dom::element e;
    if (obj[field].get(e) != simdjson::SUCCESS) return true;
    if (e.get(out) == simdjson::SUCCESS) return true;
    error = std::string(field) + ": expected true or false";
    return false;
  }
};

// Wraps a handler with the API key check and body parsing.
template <class F>
http::HttpRouter::AsyncHandler api(ServerState& state, F handler) {
  return [&state, handler](const http::HttpRequest& req, unsigned shard, Respond respond) {
    if (!admit_api_request(state, req, respond)) return;
    auto body = std::make_shared<Body>();
    if (!body->parse(req.body())) return respond(bad_request(body->error));
    handler(body, shard, std::move(respond));
  };
}

bool check_data_size(const ServerState& state, const std::string& room, const std::string& data,
                     Respond& respond) {
  const auto limit = state.options.room_options(room).max_publication_bytes;
  if (data.size() <= limit) return true;
  respond(http::make_error_response(beast_http::status::payload_too_large, "limit_exceeded",
                                    "data is " + std::to_string(data.size()) +
                                        " bytes; max_publication_bytes is " +
                                        std::to_string(limit)));
  return false;
}

}  // namespace

bool api_authorized(const ServerState& state, const http::HttpRequest& req, Respond& respond) {
  const std::string& key = state.options.api.key;
  if (key.empty()) {
    if (state.dev_mode) return true;
    respond(http::make_error_response(beast_http::status::forbidden, "api_disabled",
                                      "the server API is off: set api.key (HERALD_API_KEY)"));
    return false;
  }
  // Either of Centrifugo's two headers, so its API clients (cent.js sends
  // X-API-Key) need no change: "X-API-Key: KEY", or when that is absent
  // "Authorization: apikey KEY" (the scheme in any case). Compared in
  // constant time.
  auto is_key = [&key](std::string_view given) {
    return given.size() == key.size() && CRYPTO_memcmp(given.data(), key.data(), key.size()) == 0;
  };
  constexpr std::string_view kScheme = "apikey ";
  bool ok = false;
  if (auto x = req.find("X-API-Key"); x != req.end()) {
    ok = is_key(x->value());
  } else {
    std::string_view header = req[beast_http::field::authorization];
    ok = header.size() > kScheme.size() &&
         boost::beast::iequals(header.substr(0, kScheme.size()), kScheme) &&
         is_key(header.substr(kScheme.size()));
  }
  if (!ok) {
    http::HttpResponse res = http::make_error_response(
        beast_http::status::unauthorized, "unauthorized",
        "send the header Authorization: apikey <api.key> (or X-API-Key: <api.key>)");
    res.set(beast_http::field::www_authenticate, "apikey");
    respond(std::move(res));
  }
  return ok;
}

bool admit_json_body(const http::HttpRequest& req, Respond& respond) {
  if (req.method() == beast_http::verb::post) {
    // A plain HTML form can POST across origins without a preflight, but
    // only as urlencoded, multipart or text/plain, and it always says which.
    // Requiring JSON (or no body at all) keeps forms out even where a
    // browser sends no Origin.
    std::string_view type = req[beast_http::field::content_type];
    type = type.substr(0, type.find(';'));
    while (!type.empty() && (type.back() == ' ' || type.back() == '\t')) type.remove_suffix(1);
    const bool ok =
        type.empty() ? req.body().empty() : boost::beast::iequals(type, "application/json");
    if (!ok) {
      respond(http::make_error_response(
          beast_http::status::unsupported_media_type, "unsupported_media_type",
          type.empty() ? "a request body needs the header Content-Type: application/json"
                       : "Content-Type is '" + std::string(type) +
                             "'; the API reads JSON: send Content-Type: application/json"));
      return false;
    }
  }
  return true;
}

bool admit_api_request(const ServerState& state, const http::HttpRequest& req, Respond& respond) {
  return admit_json_body(req, respond) && api_authorized(state, req, respond);
}

http::HttpRouter::Respond respond_on_shard(ServerState& state, unsigned shard,
                                           http::HttpRouter::Respond respond) {
  auto held = std::make_shared<http::HttpRouter::Respond>(std::move(respond));
  return [&state, shard, held](http::HttpResponse res) {
    boost::asio::post((*state.pool)[shard].ctx, [held, res = std::move(res)]() mutable {
      (*held)(std::move(res));
      *held = nullptr;  // the session goes here, on its shard
    });
  };
}

void register_api_action(http::HttpRouter& router, ServerState& state, std::string path,
                         ApiAction action) {
  router.add_async(beast_http::verb::post, std::move(path),
                   [&state, action = std::move(action)](const http::HttpRequest& req,
                                                        unsigned shard, Respond respond) {
                     if (!admit_api_request(state, req, respond)) return;
                     action(req.body(), [respond = respond_on_shard(
                                             state, shard, std::move(respond))](const ApiReply& r) {
                       respond(r.status == beast_http::status::ok
                                   ? json_ok(r.result)
                                   : http::make_error_response(r.status, r.code, r.message));
                     });
                   });
}

void register_api(http::HttpRouter& router, ServerState& state) {
  router.add_async(
      beast_http::verb::post, "/api/publish",
      api(state, [&state](const std::shared_ptr<Body>& body, unsigned shard, Respond respond) {
        protocol::PublishRequest req;
        if (!body->room(req.room) || !body->data(req.data_json) ||
            !body->flag("skip_history", req.skip_history))
          return respond(bad_request(body->error));
        if (!check_data_size(state, req.room, req.data_json, respond)) return;
        state.broker->publish(shard, std::move(req), [respond](protocol::PublishResult r) {
          if (r.error) return respond(broker_error(*r.error));
          respond(json_ok(protocol::publish_result(r)));
        });
      }));

  router.add_async(
      beast_http::verb::post, "/api/broadcast",
      api(state, [&state](const std::shared_ptr<Body>& body, unsigned shard, Respond respond) {
        std::string data;
        bool skip_history = false;
        dom::array rooms;
        if (body->obj["rooms"].get(rooms) != simdjson::SUCCESS)
          return respond(bad_request("rooms: expected an array of room names"));
        if (!body->data(data) || !body->flag("skip_history", skip_history))
          return respond(bad_request(body->error));
        std::vector<std::string> names;
        for (auto r : rooms) {
          std::string_view name;
          if (r.get(name) != simdjson::SUCCESS)
            return respond(bad_request("rooms: expected an array of strings"));
          if (auto e = protocol::room_name_error(name))
            return respond(bad_request("rooms: '" + std::string(name) + "': " + *e));
          if (!check_data_size(state, std::string(name), data, respond)) return;
          names.emplace_back(name);
        }
        if (names.empty()) return respond(bad_request("rooms: expected at least one room"));
        // One publish per room; the reply lists them in request order once
        // all have answered (callbacks run on this shard, so no lock).
        struct Pending {
          std::vector<std::string> parts;
          std::size_t left;
          Respond respond;
        };
        auto pending = std::make_shared<Pending>(
            Pending{std::vector<std::string>(names.size()), names.size(), std::move(respond)});
        for (std::size_t i = 0; i < names.size(); ++i) {
          protocol::PublishRequest req{names[i], data, ""};
          req.skip_history = skip_history;
          state.broker->publish(
              shard, std::move(req), [pending, i, room = names[i]](protocol::PublishResult r) {
                std::string part = "{\"room\":";
                json::append_string(part, room);
                // The room, then the error's or the publish result's
                // fields ({"room":R} alone for a publication outside the
                // stream).
                const std::string fields =
                    r.error ? protocol::encode_error_object(r.error->code, r.error->message)
                            : protocol::publish_result(r);
                part += fields.size() > 2 ? "," + fields.substr(1) : "}";
                pending->parts[i] = std::move(part);
                if (--pending->left > 0) return;
                std::string result = "{\"responses\":[";
                for (std::size_t k = 0; k < pending->parts.size(); ++k) {
                  if (k) result += ',';
                  result += pending->parts[k];
                }
                pending->respond(json_ok(result + "]}"));
              });
        }
      }));

  router.add_async(
      beast_http::verb::post, "/api/history",
      api(state, [&state](const std::shared_ptr<Body>& body, unsigned shard,
                          const Respond& respond) {
        protocol::HistoryRequest req;
        if (!body->room(req.room)) return respond(bad_request(body->error));
        std::uint64_t limit = 0;
        if (body->obj["limit"].get(limit) == simdjson::SUCCESS)
          req.limit = static_cast<std::uint32_t>(std::min<std::uint64_t>(limit, UINT32_MAX));
        bool reverse = false;
        if (body->obj["reverse"].get(reverse) == simdjson::SUCCESS) req.reverse = reverse;
        dom::object since;
        if (body->obj["since"].get(since) == simdjson::SUCCESS) {
          std::string_view epoch;
          std::uint64_t offset = 0;
          if (since["epoch"].get(epoch) != simdjson::SUCCESS ||
              since["offset"].get(offset) != simdjson::SUCCESS)
            return respond(bad_request("since: expected {\"epoch\": string, \"offset\": integer}"));
          req.since = protocol::StreamPosition{std::string(epoch), offset};
        }
        if (state.options.room_options(req.room).history_size == 0) {
          return respond(http::make_error_response(beast_http::status::not_found, "not_available",
                                                   "history is off for '" + req.room + "'"));
        }
        state.broker->history(shard, std::move(req), [respond](protocol::HistoryResult r) {
          if (r.error) return respond(broker_error(*r.error));
          respond(json_ok(protocol::history_result(r)));
        });
      }));

  auto presence = [&state](bool stats) {
    return api(state, [&state, stats](const std::shared_ptr<Body>& body, unsigned shard,
                                      const Respond& respond) {
      std::string room;
      if (!body->room(room)) return respond(bad_request(body->error));
      if (!state.options.room_options(room).presence) {
        return respond(http::make_error_response(beast_http::status::not_found, "not_available",
                                                 "presence is off for '" + room + "'"));
      }
      state.broker->presence(shard, room, [respond, stats](protocol::PresenceResult r) {
        if (r.error) return respond(broker_error(*r.error));
        respond(json_ok(stats ? protocol::presence_stats_result(r) : protocol::presence_result(r)));
      });
    });
  };
  router.add_async(beast_http::verb::post, "/api/presence", presence(false));
  router.add_async(beast_http::verb::post, "/api/presence_stats", presence(true));

  router.add_async(
      beast_http::verb::post, "/api/disconnect",
      api(state, [&state](const std::shared_ptr<Body>& body, unsigned shard, Respond respond) {
        std::string_view user;
        if (body->obj["user"].get(user) != simdjson::SUCCESS || user.empty())
          return respond(bad_request("user: expected a non-empty string"));
        // Visit every shard; each counts and closes its connections of the
        // user, then reports back to this shard.
        struct Pending {
          std::size_t disconnected = 0;
          unsigned left;
          Respond respond;
        };
        ShardPool& pool = *state.pool;
        auto pending = std::make_shared<Pending>(Pending{0, pool.size(), std::move(respond)});
        for (unsigned s = 0; s < pool.size(); ++s) {
          boost::asio::post(pool[s].ctx, [&state, &pool, s, shard, pending, u = std::string(user)] {
            std::vector<client::Client*> hit;
            for (client::Client* c : state.shards[s]->clients)
              if (c->user() == u) hit.push_back(c);
            for (client::Client* c : hit) c->disconnect(protocol::DisconnectCode::forced);
            boost::asio::post(pool[shard].ctx, [pending, n = hit.size()] {
              pending->disconnected += n;
              if (--pending->left > 0) return;
              pending->respond(
                  json_ok("{\"disconnected\":" + std::to_string(pending->disconnected) + "}"));
            });
          });
        }
      }));
}

}  // namespace herald::gateway::api
