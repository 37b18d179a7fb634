#include "gateway/codec/herald_json.hpp"

#include "core/json.hpp"
#include "gateway/codec/lines.hpp"
#include "gateway/protocol/encode.hpp"
#include "gateway/protocol/results.hpp"

namespace herald::gateway::codec {
namespace {

// The result object of each reply shape (protocol/results.hpp holds the
// ones the HTTP API shares).
struct ResultJson {
  std::string operator()(const protocol::EmptyReply&) const { return "{}"; }
  std::string operator()(const protocol::PingReply&) const { return "{}"; }
  std::string operator()(const protocol::UnsubscribeReply&) const { return "{}"; }
  std::string operator()(const protocol::SubscribeReply& r) const {
    std::string out = protocol::subscribe_result(r.result, r.data_json);
    if (r.expires) {
      out.pop_back();
      out += ",\"expires\":" + std::to_string(*r.expires) + '}';
    }
    return out;
  }
  std::string operator()(const protocol::SubRefreshReply& r) const {
    return r.expires ? "{\"expires\":" + std::to_string(*r.expires) + '}' : "{}";
  }
  std::string operator()(const protocol::PublishReply& r) const {
    return protocol::publish_result(r.result);
  }
  std::string operator()(const protocol::HistoryReply& r) const {
    return protocol::history_result(r.result);
  }
  std::string operator()(const protocol::PresenceReply& r) const {
    return r.stats ? protocol::presence_stats_result(r.result)
                   : protocol::presence_result(r.result);
  }
  std::string operator()(const protocol::RpcReply& r) const { return std::string(r.result_json); }
  std::string operator()(const protocol::RefreshReply& r) const {
    std::string out = "{\"client\":";
    json::append_string(out, r.client);
    if (r.expires) out += ",\"expires\":" + std::to_string(*r.expires);
    return out + '}';
  }
  std::string operator()(const protocol::ConnectReply& r) const {
    std::string out;
    protocol::append_connection_identity(out, r.client, r.user);
    if (r.expires) out += ",\"expires\":" + std::to_string(*r.expires);
    if (!r.data_json.empty()) {
      out += ",\"data\":";
      out += r.data_json;
    }
    if (r.subs.empty()) return out + '}';
    out += ",\"subs\":{";
    for (std::size_t i = 0; i < r.subs.size(); ++i) {
      const protocol::ServerSubscription& s = r.subs[i];
      if (i != 0) out += ',';
      json::append_string(out, s.room);
      out += ':';
      out += s.result ? protocol::subscribe_result(*s.result, s.data_json)
                      : protocol::encode_error_object(s.error.code, s.error.message);
    }
    return out + "}}";
  }
};

}  // namespace

void HeraldJson::decode(std::string_view message, CommandSink& sink) {
  decode_lines(message, sink, [this](std::string_view line) { return parser_.parse(line); });
}

std::string HeraldJson::encode_reply(std::uint32_t id, const protocol::Reply& reply) const {
  return protocol::encode_result(id, std::visit(ResultJson{}, reply));
}

std::string HeraldJson::encode_error(std::uint32_t id, protocol::ErrorCode code,
                                     std::string_view message) const {
  return protocol::encode_error(id, code, message);
}

std::string HeraldJson::encode_disconnect(std::uint16_t code, std::string_view reason,
                                          bool reconnect) const {
  return protocol::encode_disconnect(code, reason, reconnect);
}

std::string HeraldJson::encode_push(std::string_view canonical) const {
  return std::string(canonical);
}

}  // namespace herald::gateway::codec
