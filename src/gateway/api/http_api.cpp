#include "gateway/api/http_api.hpp"

#include <boost/asio/post.hpp>
#include <boost/beast/core/string.hpp>
#include <openssl/crypto.h>
#include <simdjson.h>

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "core/json.hpp"
#include "core/time/unix_clock.hpp"
#include "gateway/api/api_dialect.hpp"
#include "gateway/api/channels.hpp"
#include "gateway/api/json_body.hpp"
#include "gateway/auth/base64.hpp"
#include "gateway/auth/subscribe_override.hpp"
#include "gateway/client/client.hpp"
#include "gateway/codec/lines.hpp"
#include "gateway/protocol/encode.hpp"
#include "gateway/protocol/results.hpp"
#include "gateway/protocol/room_name.hpp"
#include "gateway/proxy/backend_answer.hpp"
#include "gateway/shard_pool.hpp"

namespace herald::gateway::api {
namespace beast_http = boost::beast::http;
namespace dom = simdjson::dom;
using Respond = http::HttpRouter::Respond;

// The longest idempotency_key taken (the Redis broker keeps each one as a
// key for five minutes).
constexpr std::size_t kMaxIdempotencyKey = 256;

http::HttpResponse json_ok(std::string_view result) {
  std::string body = "{\"result\":";
  body += result;
  body += "}\n";
  return http::make_text_response(beast_http::status::ok, std::move(body), "application/json", 11);
}

http::HttpResponse broker_error(const protocol::BrokerError& e) {
  const ApiError error = api_error(e);
  return http::make_error_response(error.status, protocol::error_name(error.code), error.message);
}

namespace {

// What one API method answers: its result's JSON, or why not.
struct Outcome {
  std::string result;
  std::optional<ApiError> error;
};
using Done = std::function<void(Outcome)>;

Outcome refused(ApiError e) {
  return {{}, std::move(e)};
}

// A request's parameters, read with its dialect's field names. Each reader
// returns false and sets `error` (naming the field) when a field is
// missing or mistyped. `obj` points into `parser`, which lives as long as
// some Params does (a batch reads its commands one after another).
struct Params {
  std::shared_ptr<dom::parser> parser;
  dom::object obj;
  const ApiDialect* dialect;
  std::string error;

  bool room(std::string& out) {
    const std::string_view field = dialect->room_field();
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
  // "data", or Centrifugo's "b64data" (standard base64) when data is
  // absent: it must decode to JSON, as every publication here is.
  bool data(std::string& out) {
    if (!optional_json("data", out)) {
      error += " (publications are JSON here)";
      return false;
    }
    if (out.empty()) error = "data: expected a JSON value (or b64data: base64 of one)";
    return !out.empty();  // compact JSON is never empty
  }
  // An optional JSON field or its base64 twin ("info" or "b64info", "data"
  // or "b64data"); absent leaves `out` empty. `object`: it must be one.
  bool optional_json(std::string_view field, std::string& out, bool object = false) {
    const auth::JsonField f = auth::json_or_base64(obj, field, out);
    if (f == auth::JsonField::bad) {
      error = "b64" + std::string(field) + ": expected standard base64 of a JSON value";
      return false;
    }
    if (object && f == auth::JsonField::read && !out.starts_with('{')) {
      error = std::string(field) + ": expected an object";
      return false;
    }
    return true;
  }
  // An optional stream position, {"epoch": string, "offset": integer}.
  bool position(std::string_view field, std::optional<protocol::StreamPosition>& out) {
    dom::element e;
    if (obj[field].get(e) != simdjson::SUCCESS) return true;
    dom::object pos;
    std::string_view epoch;
    std::uint64_t offset = 0;
    if (e.get(pos) != simdjson::SUCCESS || pos["epoch"].get(epoch) != simdjson::SUCCESS ||
        pos["offset"].get(offset) != simdjson::SUCCESS) {
      error = std::string(field) + R"(: expected {"epoch": string, "offset": integer})";
      return false;
    }
    out = protocol::StreamPosition{std::string(epoch), offset};
    return true;
  }
  // An optional time in Unix seconds (Centrifugo's expire_at: 0 is never).
  bool unix_time(std::string_view field, std::optional<std::int64_t>& out) {
    dom::element e;
    if (obj[field].get(e) != simdjson::SUCCESS) return true;
    std::int64_t at = 0;
    if (e.get(at) != simdjson::SUCCESS || at < 0) {
      error = std::string(field) + ": expected Unix seconds (0: never)";
      return false;
    }
    out = at;
    return true;
  }
  // Centrifugo's optional "override" of a subscription's room options.
  bool subscribe_override(auth::SubscribeOverride& out) {
    dom::element e;
    if (obj["override"].get(e) != simdjson::SUCCESS) return true;
    auto wrong = auth::read_subscribe_override(e, out);
    if (wrong) error = std::move(*wrong);
    return !wrong;
  }
  // An optional boolean: absent leaves `out` as it is.
  bool flag(std::string_view field, bool& out) {
    dom::element e;
    if (obj[field].get(e) != simdjson::SUCCESS) return true;
    if (e.get(out) == simdjson::SUCCESS) return true;
    error = std::string(field) + ": expected true or false";
    return false;
  }
  // Centrifugo's idempotency_key: optional, a string of 1..kMaxIdempotencyKey
  // bytes, and only for a publication in the stream.
  bool idempotency_key(std::string& out, bool skip_history) {
    dom::element e;
    if (obj["idempotency_key"].get(e) != simdjson::SUCCESS) return true;
    std::string_view key;
    if (e.get(key) != simdjson::SUCCESS || key.empty() || key.size() > kMaxIdempotencyKey) {
      error = "idempotency_key: expected a string of 1.." + std::to_string(kMaxIdempotencyKey) +
              " bytes";
      return false;
    }
    if (skip_history) {
      error =
          "idempotency_key: not with skip_history (a publication outside the stream has no "
          "position to answer a retry with)";
      return false;
    }
    out.assign(key);
    return true;
  }
  // Centrifugo's tags: optional, an object of string values, kept with the
  // publication as compact JSON; an empty one is left out, as Centrifugo
  // leaves out an empty map.
  bool tags(std::string& out) {
    dom::element e;
    if (obj["tags"].get(e) != simdjson::SUCCESS) return true;
    dom::object tags;
    if (e.get(tags) != simdjson::SUCCESS) {
      error = "tags: expected an object of strings";
      return false;
    }
    for (auto [key, value] : tags) {
      if (!value.is_string()) {
        error = "tags: '" + std::string(key) + "': expected a string";
        return false;
      }
    }
    if (tags.size() > 0) out = simdjson::minify(tags);
    return true;
  }
  Outcome bad() const { return refused(bad_request(error)); }
};

// A method reads its parameters before it returns (they may not outlive
// the call) and answers through `done` exactly once, on the request's
// shard.
using Method = std::function<void(Params& params, unsigned shard, Done done)>;

// A publication's data and tags, together, within the room's
// max_publication_bytes.
std::optional<ApiError> data_size_error(const ServerState& state, const std::string& room,
                                        const std::string& data, const std::string& tags) {
  const auto limit = state.options.room_options(room).max_publication_bytes;
  const std::size_t size = data.size() + tags.size();
  if (size <= limit) return std::nullopt;
  return ApiError{protocol::ErrorCode::limit_exceeded,
                  std::string(tags.empty() ? "data is " : "data and tags are ") +
                      std::to_string(size) + " bytes; max_publication_bytes is " +
                      std::to_string(limit),
                  beast_http::status::payload_too_large};
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

namespace {

// Each method of the API, in both dialects (api_dialect.hpp). They read
// their parameters through `p` before returning and answer through `done`.

void publish(ServerState& state, Params& p, unsigned shard, const Done& done) {
  protocol::PublishRequest req;
  if (!p.room(req.room) || !p.data(req.data_json) || !p.tags(req.tags_json) ||
      !p.flag("skip_history", req.skip_history) ||
      !p.idempotency_key(req.idempotency_key, req.skip_history))
    return done(p.bad());
  if (auto e = data_size_error(state, req.room, req.data_json, req.tags_json))
    return done(refused(*e));
  state.broker->publish(shard, std::move(req), [done](protocol::PublishResult r) {
    if (r.error) return done(refused(api_error(*r.error)));
    done({protocol::publish_result(r), {}});
  });
}

void broadcast(ServerState& state, Params& p, unsigned shard, const Done& done) {
  const std::string_view field = p.dialect->rooms_field();
  std::string data;
  std::string tags;
  bool skip_history = false;
  dom::array rooms;
  if (p.obj[field].get(rooms) != simdjson::SUCCESS)
    return done(refused(bad_request(std::string(field) + ": expected an array of room names")));
  std::string key;
  if (!p.data(data) || !p.tags(tags) || !p.flag("skip_history", skip_history) ||
      !p.idempotency_key(key, skip_history))
    return done(p.bad());
  std::vector<std::string> names;
  for (auto r : rooms) {
    std::string_view name;
    if (r.get(name) != simdjson::SUCCESS)
      return done(refused(bad_request(std::string(field) + ": expected an array of strings")));
    if (auto e = protocol::room_name_error(name))
      return done(
          refused(bad_request(std::string(field) + ": '" + std::string(name) + "': " + *e)));
    // Data too large for one room publishes in none.
    if (auto e = data_size_error(state, std::string(name), data, tags)) return done(refused(*e));
    names.emplace_back(name);
  }
  if (names.empty())
    return done(refused(bad_request(std::string(field) + ": expected at least one room")));
  // One publish per room; the reply lists them in request order once all
  // have answered (callbacks run on this shard, so no lock).
  struct Pending {
    std::vector<std::string> parts;
    std::size_t left;
    Done done;
  };
  auto pending = std::make_shared<Pending>(
      Pending{std::vector<std::string>(names.size()), names.size(), done});
  const ApiDialect* dialect = p.dialect;
  for (std::size_t i = 0; i < names.size(); ++i) {
    protocol::PublishRequest req{names[i], data, ""};
    req.tags_json = tags;
    req.skip_history = skip_history;
    req.idempotency_key = key;  // per room, as Centrifugo's broadcast
    state.broker->publish(shard, std::move(req),
                          [pending, dialect, i, room = names[i]](const protocol::PublishResult& r) {
                            pending->parts[i] = dialect->broadcast_entry(room, r);
                            if (--pending->left > 0) return;
                            std::string result = "{\"responses\":[";
                            for (std::size_t k = 0; k < pending->parts.size(); ++k) {
                              if (k) result += ',';
                              result += pending->parts[k];
                            }
                            pending->done({result + "]}", {}});
                          });
  }
}

ApiError off_for(std::string_view what, const std::string& room) {
  return {protocol::ErrorCode::not_available, std::string(what) + " is off for '" + room + "'",
          beast_http::status::not_found};
}

void history(ServerState& state, Params& p, unsigned shard, const Done& done) {
  protocol::HistoryRequest req;
  if (!p.room(req.room) || !p.flag("reverse", req.reverse) ||
      !p.dialect->history_limit(p.obj, req.limit, p.error) || !p.position("since", req.since))
    return done(p.bad());
  if (state.options.room_options(req.room).history_size == 0)
    return done(refused(off_for("history", req.room)));
  const ApiDialect* dialect = p.dialect;
  state.broker->history(shard, std::move(req), [done, dialect](protocol::HistoryResult r) {
    if (r.error) return done(refused(api_error(*r.error)));
    done({dialect->history(r), {}});
  });
}

// Drops the room's kept publications; its epoch and offset stay, so the
// stream goes on and a client behind it is told it cannot recover.
void history_remove(ServerState& state, Params& p, unsigned shard, const Done& done) {
  std::string room;
  if (!p.room(room)) return done(p.bad());
  if (state.options.room_options(room).history_size == 0)
    return done(refused(off_for("history", room)));
  state.broker->history_remove(shard, std::move(room), [done](protocol::HistoryRemoveResult r) {
    if (r.error) return done(refused(api_error(*r.error)));
    done({"{}", {}});
  });
}

void presence(ServerState& state, Params& p, unsigned shard, const Done& done, bool stats) {
  std::string room;
  if (!p.room(room)) return done(p.bad());
  if (!state.options.room_options(room).presence) return done(refused(off_for("presence", room)));
  const ApiDialect* dialect = p.dialect;
  state.broker->presence(shard, room, [done, dialect, stats](protocol::PresenceResult r) {
    if (r.error) return done(refused(api_error(*r.error)));
    done({stats ? dialect->presence_stats(r) : dialect->presence(r), {}});
  });
}

// The connections a method acts on: every one of `user` (required,
// non-empty), or the one of them with client id `client` when given.
struct Target {
  std::string user;
  std::string client;
};

// The target of a method, read from "user" and "client"; false with
// p.error set when either is malformed.
bool read_target(Params& p, Target& out) {
  std::string_view u;
  if (p.obj["user"].get(u) != simdjson::SUCCESS || u.empty()) {
    p.error = "user: expected a non-empty string";
    return false;
  }
  out.user.assign(u);
  dom::element e;
  if (p.obj["client"].get(e) != simdjson::SUCCESS) return true;
  std::string_view c;
  if (e.get(c) != simdjson::SUCCESS) {
    p.error = "client: expected a string";
    return false;
  }
  out.client.assign(c);
  return true;
}

// What subscribe, unsubscribe and refresh share: `act` on every connection
// of the target, then the result {}.
void on_each_connection(ServerState& state, unsigned shard, Target target,
                        const std::function<void(client::Client&)>& act, const Done& done) {
  state.for_each_client_of(
      shard, std::move(target.user), std::move(target.client),
      [act](client::Client& c) {
        act(c);
        return true;
      },
      [done](std::size_t /*connections*/) {
        done({"{}", {}});
      });
}

// Unsubscribes the user's connections (or one of them) from a room: each
// that was subscribed gets an unsubscribe push (2000) and stays connected.
void unsubscribe(ServerState& state, Params& p, unsigned shard, const Done& done) {
  std::string room;
  Target target;
  if (!p.room(room) || !read_target(p, target)) return done(p.bad());
  on_each_connection(
      state, shard, std::move(target),
      [room](client::Client& c) { c.server_unsubscribe(room, protocol::UnsubscribeCode::server); },
      done);
}

// Disconnects the user's connections (or one of them) with 3502, or with
// Centrifugo's "disconnect": an application's code (4000-4999, reconnecting
// below 4500) and reason; "whitelist" names client ids to keep.
void disconnect(ServerState& state, Params& p, unsigned shard, const Done& done) {
  Target target;
  if (!read_target(p, target)) return done(p.bad());
  struct Custom {
    std::uint16_t code;
    std::string reason;
  };
  std::optional<Custom> custom;
  dom::element e;
  if (p.obj["disconnect"].get(e) == simdjson::SUCCESS) {
    dom::object d;
    std::uint64_t code = 0;
    std::string_view reason;
    if (e.get(d) != simdjson::SUCCESS || d["code"].get(code) != simdjson::SUCCESS ||
        code < proxy::kMinBackendDisconnectCode || code > proxy::kMaxBackendDisconnectCode ||
        (d["reason"].get(e) == simdjson::SUCCESS && e.get(reason) != simdjson::SUCCESS))
      return done(refused(bad_request(
          R"(disconnect: expected {"code": 4000..4999, "reason": string} (an application's code))")));
    // Safety: code is in 4000..4999, checked above.
    custom = Custom{static_cast<std::uint16_t>(code), std::string(reason)};
  }
  std::vector<std::string> keep;
  if (p.obj["whitelist"].get(e) == simdjson::SUCCESS) {
    dom::array ids;
    if (e.get(ids) != simdjson::SUCCESS)
      return done(refused(bad_request("whitelist: expected an array of client ids")));
    for (dom::element id : ids) {
      std::string_view s;
      if (id.get(s) != simdjson::SUCCESS)
        return done(refused(bad_request("whitelist: expected an array of client ids")));
      keep.emplace_back(s);
    }
  }
  state.for_each_client_of(
      shard, std::move(target.user), std::move(target.client),
      [custom, keep](client::Client& c) {
        if (std::ranges::find(keep, c.id()) != keep.end()) return false;
        if (custom) {
          c.disconnect(custom->code, custom->reason,
                       proxy::backend_disconnect_reconnects(custom->code));
        } else {
          c.disconnect(protocol::DisconnectCode::forced);
        }
        return true;
      },
      [done](std::size_t n) {
        done({"{\"disconnected\":" + std::to_string(n) + "}", {}});
      });
}

// Subscribes the user's connections (or one of them) to a room, as a
// server-side subscription: each gets a subscribe push once the broker
// answered, with "data" when given; "info" (an object) is the client's
// chan_info in the room, "override" changes the room's presence options
// for it (auth/subscribe_override.hpp). One already subscribed is left as
// it is.
void subscribe(ServerState& state, Params& p, unsigned shard, const Done& done) {
  std::string room;
  Target target;
  client::Client::ServerSubscribe how;
  std::optional<std::int64_t> expire_at;
  if (!p.room(room) || !read_target(p, target) ||
      !p.optional_json("info", how.chan_info_json, true) ||
      !p.optional_json("data", how.data_json) || !p.position("recover_since", how.since) ||
      !p.unix_time("expire_at", expire_at) || !p.subscribe_override(how.override))
    return done(p.bad());
  if (expire_at && *expire_at != 0) how.expires = expire_at;
  on_each_connection(
      state, shard, std::move(target),
      [room, how](client::Client& c) { c.server_subscribe(room, how); }, done);
}

// Moves the end of the user's connections (or one of them): `expired`
// closes them (3003), `expire_at` (Unix seconds) is their new end, 0 or
// absent never; `info` (or `b64info`) is their conn_info from now on.
void refresh(ServerState& state, Params& p, unsigned shard, const Done& done) {
  Target target;
  bool expired = false;
  std::optional<std::int64_t> expire_at;
  std::string info;
  if (!read_target(p, target) || !p.flag("expired", expired) ||
      !p.unix_time("expire_at", expire_at) || !p.optional_json("info", info))
    return done(p.bad());
  std::optional<std::string> new_info;
  if (!info.empty()) new_info = std::move(info);
  on_each_connection(
      state, shard, std::move(target),
      [expired, expire_at, new_info](client::Client& c) {
        c.server_refresh(expired, expire_at, new_info);
      },
      done);
}

// The service's nodes, Centrifugo's info: each with its census as of its
// last heartbeat, this node's as of now. With the embedded broker this
// node is the only one.
void info(ServerState& state, Params& /*p*/, unsigned shard, const Done& done) {
  auto answer = [&state, done](std::vector<broker::ClusterNode> nodes) {
    auto self = std::ranges::find(nodes, state.node_id, &broker::ClusterNode::id);
    if (self == nodes.end()) {  // alone, or before this node's first beat was answered
      nodes.push_back({state.node_id, {}, 0, 0, {}});
      self = std::prev(nodes.end());
    }
    self->stats = state.node_stats();
    const std::int64_t now = unix_now();
    std::string out = "{\"nodes\":[";
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      const broker::ClusterNode& n = nodes[i];
      if (i) out += ',';
      out += "{\"uid\":";
      json::append_string(out, n.id);
      out += ",\"name\":";
      json::append_string(out, n.id);
      out += ",\"version\":";
      json::append_string(out, n.stats.version);
      out += ",\"num_clients\":" + std::to_string(n.stats.clients) +
             ",\"num_users\":" + std::to_string(n.stats.users) +
             ",\"num_channels\":" + std::to_string(n.stats.rooms) +
             ",\"num_subs\":" + std::to_string(n.stats.subscriptions) + ",\"uptime\":" +
             std::to_string(n.stats.started_unix_s > 0
                                ? std::max<std::int64_t>(0, now - n.stats.started_unix_s)
                                : 0) +
             '}';
    }
    done({out + "]}", {}});
  };
  if (!state.cluster_nodes) return answer({});
  state.cluster_nodes(shard, answer);
}

// Centrifugo's channels: the rooms with subscribers over the service
// matching "pattern" (channels.hpp), this node's census added to every
// other node's answer; refused (unavailable) when a node does not answer,
// rather than undercounted.
void channels(ServerState& state, Params& p, unsigned shard, const Done& done) {
  std::string_view pattern;
  dom::element e;
  if (p.obj["pattern"].get(e) == simdjson::SUCCESS && e.get(pattern) != simdjson::SUCCESS)
    return done(refused(bad_request("pattern: expected a string (a glob: * ? [..])")));
  RoomCounts rooms = local_rooms(state.census, pattern);
  if (!state.survey) return done({channels_result(rooms), {}});
  state.survey(shard, channels_question(pattern),
               [done, rooms = std::move(rooms)](broker::SurveyResult r) mutable {
                 if (r.error) {
                   return done(refused({protocol::ErrorCode::unavailable, "channels: " + *r.error,
                                        beast_http::status::service_unavailable}));
                 }
                 for (const auto& [node, answer] : r.answers) {
                   if (!add_answer(answer, rooms)) {
                     return done(refused({protocol::ErrorCode::unavailable,
                                          "channels: node " + node + " answered garbage",
                                          beast_http::status::service_unavailable}));
                   }
                 }
                 done({channels_result(rooms), {}});
               });
}

using Methods = std::map<std::string, Method, std::less<>>;

Methods methods(ServerState& state) {
  using std::placeholders::_1, std::placeholders::_2, std::placeholders::_3;
  Methods m;
  m["publish"] = std::bind(publish, std::ref(state), _1, _2, _3);
  m["broadcast"] = std::bind(broadcast, std::ref(state), _1, _2, _3);
  m["history"] = std::bind(history, std::ref(state), _1, _2, _3);
  m["history_remove"] = std::bind(history_remove, std::ref(state), _1, _2, _3);
  m["info"] = std::bind(info, std::ref(state), _1, _2, _3);
  m["channels"] = std::bind(channels, std::ref(state), _1, _2, _3);
  m["presence"] = std::bind(presence, std::ref(state), _1, _2, _3, false);
  m["presence_stats"] = std::bind(presence, std::ref(state), _1, _2, _3, true);
  m["disconnect"] = std::bind(disconnect, std::ref(state), _1, _2, _3);
  m["subscribe"] = std::bind(subscribe, std::ref(state), _1, _2, _3);
  m["refresh"] = std::bind(refresh, std::ref(state), _1, _2, _3);
  m["unsubscribe"] = std::bind(unsubscribe, std::ref(state), _1, _2, _3);
  return m;
}

http::HttpResponse answer(const ApiDialect& dialect, const Outcome& o) {
  return o.error ? dialect.error_response(*o.error) : json_ok(o.result);
}

// One call of a batch: the method (null for a name no method has), and its
// parameters, which `keep` holds.
struct Call {
  std::string name;
  const Method* method;
  std::shared_ptr<dom::parser> keep;
  dom::object params;
};

// Runs `calls` one after another on `shard`, each after the previous one
// answered (so a batch's publications keep their order), each on a turn of
// its own (so a long batch does not hold the shard), then hands over the
// calls with their outcomes, in order.
using Finish = std::function<void(const std::vector<Call>&, const std::vector<Outcome>&)>;
void run_in_order(ServerState& state, unsigned shard, std::vector<Call> calls, Finish finish) {
  struct Run {
    std::vector<Call> calls;
    std::vector<Outcome> outcomes;
    Finish finish;
  };
  auto run = std::make_shared<Run>(Run{std::move(calls), {}, std::move(finish)});
  auto step = std::make_shared<std::function<void()>>();
  *step = [&state, shard, run, weak = std::weak_ptr<std::function<void()>>(step)] {
    if (run->outcomes.size() == run->calls.size()) return run->finish(run->calls, run->outcomes);
    // The outcome recorded, the next call on a turn of its own.
    auto record = [&state, shard, run, next = weak.lock()](Outcome o) {
      run->outcomes.push_back(std::move(o));
      boost::asio::post((*state.pool)[shard].ctx, [next] { (*next)(); });
    };
    Call& call = run->calls[run->outcomes.size()];
    if (call.method == nullptr) {
      return record(refused({protocol::ErrorCode::unknown_command, "no method '" + call.name + "'",
                             beast_http::status::not_found}));
    }
    Params p{call.keep, call.params, &centrifugo_dialect(), {}};
    (*call.method)(p, shard, record);
  };
  (*step)();
}

}  // namespace

void register_api(http::HttpRouter& router, ServerState& state) {
  auto all = std::make_shared<const Methods>(methods(state));
  auto find = [all](std::string_view name) -> const Method* {
    auto it = all->find(name);
    return it == all->end() ? nullptr : &it->second;
  };
  for (const auto& [name, method] : *all) {
    router.add_async(
        beast_http::verb::post, "/api/" + name,
        [&state, all, method = &method](const http::HttpRequest& req, unsigned shard,
                                        Respond respond) {
          if (!admit_api_request(state, req, respond)) return;
          auto parser = std::make_shared<dom::parser>();
          auto parsed = parse_json_object(*parser, req.body());
          if (!parsed)
            return respond(answer(herald_dialect(), refused(bad_request(parsed.error()))));
          Params p{parser, *parsed, &dialect_of(*parsed, req), {}};
          const ApiDialect* dialect = p.dialect;
          (*method)(p, shard,
                    [respond, dialect](const Outcome& o) { respond(answer(*dialect, o)); });
        });
  }

  // Centrifugo's batch: {"commands":[{"<method>":{params}}, ...]} run in
  // order, answered {"replies":[{"<method>":R} or {"error":E}, ...]} (not
  // under "result": Centrifugo's BatchResponse). "parallel" is accepted and
  // the commands still run in order, which is what parallel allows.
  router.add_async(
      beast_http::verb::post, "/api/batch",
      [&state, find](const http::HttpRequest& req, unsigned shard, Respond respond) {
        if (!admit_api_request(state, req, respond)) return;
        const ApiDialect& dialect = centrifugo_dialect();
        auto parser = std::make_shared<dom::parser>();
        auto parsed = parse_json_object(*parser, req.body());
        if (!parsed) return respond(answer(dialect, refused(bad_request(parsed.error()))));
        dom::array commands;
        if ((*parsed)["commands"].get(commands) != simdjson::SUCCESS)
          return respond(
              answer(dialect, refused(bad_request("commands: expected an array of commands"))));
        std::vector<Call> calls;
        for (dom::element c : commands) {
          dom::object command;
          dom::object params;
          if (c.get(command) != simdjson::SUCCESS || command.size() != 1 ||
              (*command.begin()).value.get(params) != simdjson::SUCCESS)
            return respond(
                answer(dialect, refused(bad_request("commands[" + std::to_string(calls.size()) +
                                                    "]: expected one method and its parameters, "
                                                    "such as {\"publish\":{\"channel\":..}}"))));
          const std::string_view name = (*command.begin()).key;
          calls.push_back({std::string(name), find(name), parser, params});
        }
        run_in_order(
            state, shard, std::move(calls),
            [respond](const std::vector<Call>& done, const std::vector<Outcome>& outcomes) {
              std::string body = "{\"replies\":[";
              for (std::size_t i = 0; i < outcomes.size(); ++i) {
                if (i) body += ',';
                if (outcomes[i].error) {
                  body += centrifugo_error_reply(*outcomes[i].error);
                  continue;
                }
                body += "{";
                json::append_string(body, done[i].name);
                body += ':' + outcomes[i].result + '}';
              }
              respond(http::make_text_response(beast_http::status::ok, body + "]}\n",
                                               "application/json", 11));
            });
      });

  // Centrifugo's older API at /api itself, which cent.js's pipeline()
  // still sends: one command a line, {"method":"publish","params":{..}},
  // answered a line each, {"result":R} or {"error":E}, in order (no
  // newline after the last: cent.js parses every line it splits off).
  router.add_async(
      beast_http::verb::post, "/api",
      [&state, find](const http::HttpRequest& req, unsigned shard, Respond respond) {
        if (!admit_api_request(state, req, respond)) return;
        std::vector<Call> calls;
        bool malformed = false;
        codec::for_each_line(req.body(), [&](std::string_view line) {
          if (malformed || line.find_first_not_of(" \t") == std::string_view::npos) return;
          // Each line its own parser: the calls keep their parameters.
          auto parser = std::make_shared<dom::parser>();
          auto parsed = parse_json_object(*parser, line);
          std::string_view method;
          dom::object params;
          malformed = !parsed || (*parsed)["method"].get(method) != simdjson::SUCCESS ||
                      (*parsed)["params"].get(params) != simdjson::SUCCESS;
          if (!malformed) calls.push_back({std::string(method), find(method), parser, params});
        });
        if (malformed) {
          return respond(
              answer(centrifugo_dialect(),
                     refused(bad_request("line " + std::to_string(calls.size() + 1) +
                                         ": expected {\"method\":\"<name>\",\"params\":{..}}"))));
        }
        run_in_order(
            state, shard, std::move(calls),
            [respond](const std::vector<Call>& /*calls*/, const std::vector<Outcome>& outcomes) {
              std::string out;
              for (const Outcome& o : outcomes) {
                if (!out.empty()) out += '\n';
                out += o.error ? centrifugo_error_reply(*o.error) : "{\"result\":" + o.result + '}';
              }
              respond(http::make_text_response(beast_http::status::ok, std::move(out),
                                               "application/json", 11));
            });
      });
}

}  // namespace herald::gateway::api
