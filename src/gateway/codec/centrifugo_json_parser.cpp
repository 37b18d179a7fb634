// Centrifugo's commands with simdjson's DOM parser, as Herald's are
// (codec/herald_json_parser.cpp): the whole line is validated, then the
// fields are read by name through JsonFields, whose messages name the field
// and what was expected.
#include "gateway/codec/centrifugo_json_parser.hpp"

#include <simdjson.h>

#include <array>
#include <limits>
#include <string>

#include "gateway/codec/centrifugo_results.hpp"
#include "gateway/codec/json_fields.hpp"

namespace herald::gateway::codec {
namespace dom = simdjson::dom;
using namespace protocol;

struct CentrifugoCommandParser::Impl {
  dom::parser parser;
  std::size_t max_line_bytes;
};

namespace {

// The methods of client.proto's Command, in its order.
constexpr std::array<std::string_view, 12> kMethods{
    "connect", "subscribe", "unsubscribe", "publish", "presence", "presence_stats",
    "history", "ping",      "send",        "rpc",     "refresh",  "sub_refresh"};

bool is_method(std::string_view key) {
  for (std::string_view m : kMethods) {
    if (m == key) return true;
  }
  return false;
}

// JsonFields and Centrifugo's stream positions: recover/epoch/offset at the
// top of a subscribe, {offset, epoch} in connect's subs and history's
// since, either left out when zero or empty.
struct Reader : JsonFields {
  // Where a request stands in its stream: epoch and offset, both optional.
  bool position(dom::object obj, StreamPosition& out) const {
    std::optional<std::uint64_t> offset;
    if (!string(obj, "epoch", out.epoch, false)) return false;
    if (!uint(obj, "offset", offset, std::numeric_limits<std::uint64_t>::max())) return false;
    out.offset = offset.value_or(0);
    return true;
  }

  // subscribe's (and connect subs'): a position only with "recover": true.
  bool recovery(dom::object obj, std::optional<StreamPosition>& since) const {
    bool recover = false;
    if (!boolean(obj, "recover", recover)) return false;
    StreamPosition at;
    if (!position(obj, at)) return false;
    if (recover) since = std::move(at);
    return true;
  }

  // connect's "subs": {"<channel>":{"recover":true,"epoch":"..","offset":N}}.
  bool subs(dom::object obj, RoomPositions& out) const {
    std::optional<dom::object> channels;
    if (!object(obj, "subs", channels)) return false;
    if (!channels) return true;
    for (auto [channel, value] : *channels) {
      dom::object entry;
      if (value.get(entry) != simdjson::SUCCESS) {
        return fail("subs." + std::string(channel), "an object {recover, epoch, offset}");
      }
      const std::string where = "connect.subs." + std::string(channel);  // outlives `sub`
      Reader sub{{where, error}};
      std::optional<StreamPosition> since;
      if (!sub.recovery(entry, since)) return false;
      if (since) out.emplace_back(std::string(channel), std::move(*since));
    }
    return true;
  }
};

bool parse_body(std::string_view method, dom::object params, CommandBody& body,
                CommandError& error) {
  Reader r{{method, &error}};
  if (method == "connect") {
    ConnectCmd c;
    if (!r.string(params, "token", c.token, false) || !r.subs(params, c.subs)) return false;
    r.any_json(params, "data", c.data);
    body = std::move(c);
  } else if (method == "subscribe") {
    SubscribeCmd c;
    bool join_leave = false;  // the SDK's joinLeave: absent is false
    if (!r.string(params, "channel", c.room, true) || !r.recovery(params, c.since) ||
        !r.string(params, "token", c.token, false) || !r.boolean(params, "join_leave", join_leave))
      return false;
    c.join_leave = join_leave;
    r.any_json(params, "data", c.data);
    body = std::move(c);
  } else if (method == "unsubscribe") {
    UnsubscribeCmd c;
    if (!r.string(params, "channel", c.room, true)) return false;
    body = std::move(c);
  } else if (method == "publish") {
    PublishCmd c;
    if (!r.string(params, "channel", c.room, true)) return false;
    r.any_json(params, "data", c.data);
    if (c.data.empty()) return r.fail("data", "a JSON value");
    body = std::move(c);
  } else if (method == "history") {
    HistoryCmd c;
    std::optional<std::int64_t> limit;
    std::optional<dom::object> since;
    if (!r.string(params, "channel", c.room, true) ||
        !r.int_in(params, "limit", limit, -1, std::numeric_limits<std::int32_t>::max()) ||
        !r.object(params, "since", since) || !r.boolean(params, "reverse", c.reverse))
      return false;
    c.limit = centrifugo::history_limit(limit);
    if (since) {
      StreamPosition at;
      Reader s{{"history.since", &error}};
      if (!s.position(*since, at)) return false;
      c.since = std::move(at);
    }
    body = std::move(c);
  } else if (method == "presence") {
    PresenceCmd c;
    if (!r.string(params, "channel", c.room, true)) return false;
    body = std::move(c);
  } else if (method == "presence_stats") {
    PresenceStatsCmd c;
    if (!r.string(params, "channel", c.room, true)) return false;
    body = std::move(c);
  } else if (method == "ping") {
    body = PingCmd{};
  } else if (method == "rpc") {
    RpcCmd c;
    if (!r.string(params, "method", c.method, false)) return false;
    r.any_json(params, "data", c.data);
    body = std::move(c);
  } else if (method == "refresh") {
    RefreshCmd c;
    if (!r.string(params, "token", c.token, true)) return false;
    if (c.token.empty()) return r.fail("token", "a token");
    body = std::move(c);
  } else {  // sub_refresh
    SubRefreshCmd c;
    if (!r.string(params, "channel", c.room, true) || !r.string(params, "token", c.token, true))
      return false;
    if (c.token.empty()) return r.fail("token", "a token");
    body = std::move(c);
  }
  return true;
}

}  // namespace

CentrifugoCommandParser::CentrifugoCommandParser(std::size_t max_line_bytes)
    : impl_(std::make_unique<Impl>(Impl{dom::parser(max_line_bytes), max_line_bytes})) {}

CentrifugoCommandParser::~CentrifugoCommandParser() = default;

CentrifugoParse CentrifugoCommandParser::parse(std::string_view line) {
  CommandError error;
  dom::object obj;
  if (!parse_command_object(impl_->parser, line, impl_->max_line_bytes, obj, error)) return error;
  std::uint64_t id = 0;
  dom::element id_field;
  if (obj["id"].get(id_field) == simdjson::SUCCESS &&
      (id_field.get(id) != simdjson::SUCCESS || id > std::numeric_limits<std::uint32_t>::max())) {
    error.message = "\"id\" must be an integer in 0..4294967295";
    return error;
  }
  std::string_view method;
  dom::object params;
  for (auto field : obj) {
    if (!is_method(field.key)) continue;
    method = field.key;
    if (field.value.get(params) != simdjson::SUCCESS) {
      error.id = static_cast<std::uint32_t>(id);
      error.message = std::string(method) + ": expected an object of parameters";
      return error;
    }
    break;
  }
  if (method.empty()) {
    if (id == 0) return NoCommand{};  // {} (or {"id":0}): a pong
    error.id = static_cast<std::uint32_t>(id);
    error.code = ErrorCode::unknown_command;
    error.message = "a command needs a key naming its method, e.g. {\"id\":1,\"connect\":{}}";
    return error;
  }
  if (method == "send") return NoCommand{true};
  if (id == 0) {
    error.message = std::string(method) + " needs an \"id\" (1..4294967295)";
    return error;
  }
  // Safety: id was checked to be at most UINT32_MAX above.
  error.id = static_cast<std::uint32_t>(id);
  Command cmd;
  cmd.id = error.id;
  if (!parse_body(method, params, cmd.body, error)) return error;
  return cmd;
}

}  // namespace herald::gateway::codec
