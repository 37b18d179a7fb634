#include "gateway/codec/centrifugo_json.hpp"

#include <simdjson.h>

#include <algorithm>

#include "core/json.hpp"
#include "core/time/unix_clock.hpp"
#include "gateway/codec/centrifugo_codes.hpp"
#include "gateway/codec/centrifugo_results.hpp"
#include "gateway/codec/lines.hpp"

namespace herald::gateway::codec {
namespace dom = simdjson::dom;

namespace {

using centrifugo::append_client_info;
using centrifugo::append_publication;
using centrifugo::append_publications;
using centrifugo::parse_object;

// "recoverable":true,"positioned":true,"epoch":E,"offset":N for a room with
// a stream (an epoch), whose position its SDK keeps to recover from after a
// reconnect; nothing for a room without one.
void append_position(std::string& out, std::string_view epoch, std::uint64_t offset) {
  if (epoch.empty()) return;
  out += "\"recoverable\":true,\"positioned\":true,\"epoch\":";
  json::append_string(out, epoch);
  out += ",\"offset\":" + std::to_string(offset);
}

// "expires":true,"ttl":<seconds left, at least 1: a ttl of 0 would make the
// SDK refresh in a loop>, after a comma unless it opens an object.
void append_expiry(std::string& out, std::int64_t expires_at) {
  if (out.back() != '{') out += ',';
  out += "\"expires\":true,\"ttl\":" +
         std::to_string(std::max<std::int64_t>(1, expires_at - unix_now()));
}

// Centrifugo's SubscribeResult. A room with a stream (an epoch) is
// positioned and recoverable: its SDK then keeps the offset and asks to
// recover from it after a reconnect. Publications go with a recovery that
// held only: the SDK hands every one it is given to the application, and a
// recovery that failed tells it to reload instead (was_recovering without
// recovered).
std::string subscribe_result(const protocol::SubscribeResult& r, std::string_view data_json,
                             bool was_recovering) {
  std::string out = "{";
  append_position(out, r.epoch, r.offset);
  auto comma = [&out] {
    if (out.size() > 1) out += ',';
  };
  if (was_recovering) {
    comma();
    out += "\"was_recovering\":true";
  }
  if (r.recovered) {
    comma();
    out += "\"recovered\":true";
    if (!r.publications.empty()) {
      out += ',';
      append_publications(out, r.publications);
    }
  }
  if (!data_json.empty()) {
    comma();
    out += "\"data\":";
    out += data_json;
  }
  return out + '}';
}

// The result object of each reply, under the key of the command it answers.
struct ResultJson {
  std::string& out;
  std::uint32_t ping_seconds;  // the connect reply's "ping"; 0: left out

  void key(std::string_view method) {
    out += ",\"";
    out += method;
    out += "\":";
  }
  void operator()(const protocol::EmptyReply&) {}  // the room list's: not decoded here
  void operator()(const protocol::PingReply&) {
    key("ping");
    out += "{}";
  }
  void operator()(const protocol::UnsubscribeReply&) {
    key("unsubscribe");
    out += "{}";
  }
  void operator()(const protocol::SubscribeReply& r) {
    key("subscribe");
    out += subscribe_result(r.result, r.data_json, r.was_recovering);
    if (r.expires) {
      out.pop_back();
      append_expiry(out, *r.expires);
      out += '}';
    }
  }
  // {"expires":true,"ttl":N} or {}: the SDK asks its getToken again
  // before the ttl runs out.
  void operator()(const protocol::SubRefreshReply& r) {
    key("sub_refresh");
    if (!r.expires) {
      out += "{}";
      return;
    }
    out += '{';
    append_expiry(out, *r.expires);
    out += '}';
  }
  void operator()(const protocol::PublishReply&) {
    key("publish");
    out += "{}";
  }
  void operator()(const protocol::HistoryReply& r) {
    key("history");
    out += centrifugo::history_result(r.result);
  }
  void operator()(const protocol::PresenceReply& r) {
    key(r.stats ? "presence_stats" : "presence");
    out += r.stats ? centrifugo::presence_stats_result(r.result)
                   : centrifugo::presence_result(r.result);
  }
  void operator()(const protocol::RefreshReply& r) {
    key("refresh");
    open_identity(r.client);
    if (r.expires) append_expiry(out, *r.expires);
    out += '}';
  }
  // {"client":C,"version":V, left open: how connect and refresh results
  // begin.
  void open_identity(std::string_view client) {
    out += "{\"client\":";
    json::append_string(out, client);
    out += ",\"version\":";
    json::append_string(out, HERALD_VERSION);
  }
  void operator()(const protocol::RpcReply& r) {
    key("rpc");
    if (r.result_json.empty()) {
      out += "{}";
      return;
    }
    out += "{\"data\":";
    out += r.result_json;
    out += '}';
  }
  void operator()(const protocol::ConnectReply& r) {
    key("connect");
    open_identity(r.client);
    if (ping_seconds != 0) {
      out += ",\"ping\":" + std::to_string(ping_seconds) + ",\"pong\":true";
    }
    // Only an expiry the client refreshes itself: the SDK then asks its
    // getToken before it passes and sends refresh. (Announced otherwise,
    // an SDK without getToken would stop as misconfigured.)
    if (r.client_refreshes && r.expires) append_expiry(out, *r.expires);
    if (!r.data_json.empty()) {
      out += ",\"data\":";
      out += r.data_json;
    }
    // Centrifugo's connect result has no place for a refused server-side
    // subscription: it is left out (the SDK then has no such channel).
    bool first = true;
    for (const protocol::ServerSubscription& s : r.subs) {
      if (!s.result) continue;
      out += first ? ",\"subs\":{" : ",";
      first = false;
      json::append_string(out, s.room);
      out += ':';
      out += subscribe_result(*s.result, s.data_json, s.was_recovering);
    }
    if (!first) out += '}';
    out += '}';
  }
};

}  // namespace

CentrifugoJson::CentrifugoJson(std::size_t max_line_bytes, std::chrono::milliseconds ping_interval)
    : parser_(max_line_bytes),
      // Rounded up: the SDK waits "ping" seconds and 10 more for the next
      // one, so announcing more than the period never cuts a live client.
      // Safety: client.idle_timeout is at most an hour, so this fits.
      ping_seconds_(static_cast<std::uint32_t>(
          std::chrono::ceil<std::chrono::seconds>(ping_interval).count())) {}

void CentrifugoJson::decode(std::string_view message, CommandSink& sink) {
  decode_lines(message, sink, [this](std::string_view line) { return parser_.parse(line); });
}

std::string CentrifugoJson::encode_reply(std::uint32_t id, const protocol::Reply& reply) const {
  std::string out = "{\"id\":" + std::to_string(id);
  std::visit(ResultJson{out, ping_seconds_}, reply);
  return out + '}';
}

std::string CentrifugoJson::encode_error(std::uint32_t id, protocol::ErrorCode code,
                                         std::string_view message) const {
  const centrifugo::Error e = centrifugo::error_for(code);
  std::string out = "{\"id\":" + std::to_string(id) +
                    ",\"error\":{\"code\":" + std::to_string(e.code) + ",\"message\":";
  json::append_string(out, message);
  if (e.temporary) out += ",\"temporary\":true";
  return out + "}}";
}

std::string CentrifugoJson::encode_disconnect(std::uint16_t code, std::string_view reason,
                                              bool /*reconnect*/) const {
  // Centrifugo's SDKs read reconnect from the code's range, which the
  // mapped code keeps (codec/centrifugo_codes.hpp).
  const centrifugo::Disconnect d = centrifugo::disconnect_for(code, reason);
  std::string out =
      "{\"push\":{\"disconnect\":{\"code\":" + std::to_string(d.code) + ",\"reason\":";
  json::append_string(out, d.reason);
  return out + "}}}";
}

Codec::Close CentrifugoJson::close_frame(std::uint16_t code, std::string_view reason) const {
  const centrifugo::Disconnect d = centrifugo::disconnect_for(code, reason);
  return {d.code, std::string(d.reason)};
}

std::string CentrifugoJson::encode_push(std::string_view canonical) const {
  dom::object push;
  if (!parse_object(canonical, push)) return {};
  for (auto [kind, value] : push) {
    if (kind == "refresh") {
      // The connection's, not a channel's: {"push":{"refresh":{"expires":
      // true,"ttl":N}}}, or {} when it no longer expires.
      dom::object body;
      std::int64_t expires = 0;
      if (value.get(body) != simdjson::SUCCESS) return {};
      std::string out = "{\"push\":{\"refresh\":{";
      if (body["expires"].get(expires) == simdjson::SUCCESS) append_expiry(out, expires);
      return out + "}}}";
    }
    dom::object body;
    std::string_view room;
    if (value.get(body) != simdjson::SUCCESS || body["room"].get(room) != simdjson::SUCCESS) {
      return {};
    }
    std::string out = "{\"push\":{\"channel\":";
    json::append_string(out, room);
    if (kind == "pub") {
      out += ",\"pub\":";
      append_publication(out, body);
    } else if (kind == "join" || kind == "leave") {
      out += ",\"";
      out += kind;
      out += "\":{";
      dom::object info;
      if (body["info"].get(info) == simdjson::SUCCESS) {
        out += "\"info\":";
        append_client_info(out, info);
      }
      out += '}';
    } else if (kind == "subscribe") {
      // A server-side subscription made while connected: its position,
      // which the SDK keeps to recover it after a reconnect.
      std::string_view epoch;
      std::uint64_t offset = 0;
      if (body["epoch"].get(epoch) != simdjson::SUCCESS ||
          body["offset"].get(offset) != simdjson::SUCCESS) {
        return {};
      }
      out += ",\"subscribe\":{";
      append_position(out, epoch, offset);
      dom::element data;
      if (body["data"].get(data) == simdjson::SUCCESS) {
        out += ",\"data\":";
        out += simdjson::minify(data);
      }
      out += '}';
    } else if (kind == "unsubscribe") {
      // {"code":C,"reason":".."}: the codes are Centrifugo's already
      // (protocol::UnsubscribeCode).
      std::uint64_t code = 0;
      std::string_view reason;
      if (body["code"].get(code) != simdjson::SUCCESS ||
          body["reason"].get(reason) != simdjson::SUCCESS) {
        return {};
      }
      out += ",\"unsubscribe\":{\"code\":" + std::to_string(code) + ",\"reason\":";
      json::append_string(out, reason);
      out += '}';
    } else {
      return {};  // the room list's pushes: Centrifugo has none
    }
    return out + "}}";
  }
  return {};
}

}  // namespace herald::gateway::codec
