// Command parsing with simdjson's DOM parser: the whole line is validated
// (a publication's data is forwarded to other clients, so it must be JSON),
// then fields are read by name. Errors name the field and what was expected.
#include "gateway/codec/herald_json_parser.hpp"

#include <simdjson.h>

#include <limits>

#include "gateway/codec/json_fields.hpp"
#include "gateway/codec/room_query_json.hpp"
#include "gateway/protocol/room_list_push.hpp"

namespace herald::gateway::codec {
namespace dom = simdjson::dom;
// The command types are protocol/command.hpp's, named on every other line.
using namespace protocol;

struct CommandParser::Impl {
  dom::parser parser;
  std::size_t max_line_bytes;
};

namespace {

// JsonFields (codec/json_fields.hpp) and the stream positions of Herald's
// protocol: {"epoch","offset"}, both required.
struct Reader : JsonFields {
  // {"<room>":{"since":{epoch, offset}}, ...}; absent is empty.
  bool room_positions(dom::object obj, std::string_view field, RoomPositions& out) {
    dom::element e;
    if (obj[field].get(e) != simdjson::SUCCESS) return true;
    dom::object rooms;
    if (e.get(rooms) != simdjson::SUCCESS) {
      return fail(field, "an object {\"<room>\":{\"since\":{epoch, offset}}}");
    }
    for (auto [room, value] : rooms) {
      dom::object entry;
      const std::string where = std::string(field) + "." + std::string(room);
      if (value.get(entry) != simdjson::SUCCESS) return fail(where, "an object {since}");
      std::optional<StreamPosition> since;
      if (!position(entry, "since", since, where + ".since")) return false;
      if (since) out.emplace_back(std::string(room), std::move(*since));
    }
    return true;
  }

  bool position(dom::object obj, std::string_view field, std::optional<StreamPosition>& out) {
    return position(obj, field, out, field);
  }
  // `name`: the field's full name in messages.
  bool position(dom::object obj, std::string_view field, std::optional<StreamPosition>& out,
                std::string_view name) {
    dom::element e;
    if (obj[field].get(e) != simdjson::SUCCESS) return true;
    dom::object pos;
    if (e.get(pos) != simdjson::SUCCESS) return fail(name, "an object {epoch, offset}");
    StreamPosition p;
    std::string_view epoch;
    std::uint64_t offset = 0;
    if (pos["epoch"].get(epoch) != simdjson::SUCCESS)
      return fail(std::string(name) + ".epoch", "a string");
    if (pos["offset"].get(offset) != simdjson::SUCCESS)
      return fail(std::string(name) + ".offset", "an unsigned integer");
    p.epoch.assign(epoch);
    p.offset = offset;
    out = std::move(p);
    return true;
  }
};

bool parse_body(std::string_view method, dom::object params, CommandBody& body,
                CommandError& error) {
  Reader r{{method, &error}};
  if (method == "connect") {
    ConnectCmd c;
    if (!r.string(params, "token", c.token, false) || !r.string(params, "user", c.user, false) ||
        !r.room_positions(params, "subs", c.subs))
      return false;
    r.any_json(params, "data", c.data);
    body = std::move(c);
  } else if (method == "refresh") {
    RefreshCmd c;
    if (!r.string(params, "token", c.token, true)) return false;
    body = std::move(c);
  } else if (method == "subscribe") {
    SubscribeCmd c;
    if (!r.string(params, "room", c.room, true) || !r.position(params, "since", c.since) ||
        !r.string(params, "token", c.token, false))
      return false;
    r.any_json(params, "data", c.data);
    body = std::move(c);
  } else if (method == "sub_refresh") {
    SubRefreshCmd c;
    if (!r.string(params, "room", c.room, true) || !r.string(params, "token", c.token, true))
      return false;
    body = std::move(c);
  } else if (method == "unsubscribe") {
    UnsubscribeCmd c;
    if (!r.string(params, "room", c.room, true)) return false;
    body = std::move(c);
  } else if (method == "publish") {
    PublishCmd c;
    if (!r.string(params, "room", c.room, true)) return false;
    dom::element data;
    if (params["data"].get(data) != simdjson::SUCCESS) return r.fail("data", "a JSON value");
    c.data = simdjson::minify(data);
    body = std::move(c);
  } else if (method == "history") {
    HistoryCmd c;
    std::optional<std::uint64_t> limit;
    if (!r.string(params, "room", c.room, true) ||
        !r.uint(params, "limit", limit, std::numeric_limits<std::uint32_t>::max()) ||
        !r.position(params, "since", c.since) || !r.boolean(params, "reverse", c.reverse))
      return false;
    if (limit) c.limit = static_cast<std::uint32_t>(*limit);
    body = std::move(c);
  } else if (method == "presence") {
    PresenceCmd c;
    if (!r.string(params, "room", c.room, true)) return false;
    body = std::move(c);
  } else if (method == "presence_stats") {
    PresenceStatsCmd c;
    if (!r.string(params, "room", c.room, true)) return false;
    body = std::move(c);
  } else if (method == "ping") {
    body = PingCmd{};
  } else if (method == "rpc") {
    RpcCmd c;
    if (!r.string(params, "method", c.method, true)) return false;
    r.any_json(params, "data", c.data);
    body = std::move(c);
  } else if (method == "rooms.watch") {
    RoomsWatchCmd c;
    std::optional<std::uint64_t> page;
    if (!r.uint(params, "page_size", page, kMaxRoomPageSize) ||
        !read_room_sort(r, params, c.sort) || !read_room_filter(r, params, c.filter))
      return false;
    if (page) {
      if (*page == 0) return r.fail("page_size", "an integer from 1 to 1000");
      c.page_size = static_cast<std::uint32_t>(*page);
    }
    body = std::move(c);
  } else if (method == "rooms.page") {
    RoomsPageCmd c;
    if (!r.boolean(params, "more", c.more) || !r.boolean(params, "reset", c.reset)) return false;
    if (c.more == c.reset) return r.fail("more", "exactly one of more: true or reset: true");
    body = c;
  } else if (method == "rooms.read") {
    RoomsReadCmd c;
    if (!r.string(params, "room", c.room, true)) return false;
    body = std::move(c);
  } else if (method == "rooms.tag") {
    RoomsTagCmd c;
    if (!r.string(params, "room", c.room, true) || !r.boolean(params, "favourite", c.favourite) ||
        !r.boolean(params, "low_priority", c.low_priority))
      return false;
    body = std::move(c);
  } else if (method == "rooms.mark_unread") {
    RoomsMarkUnreadCmd c;
    if (!r.string(params, "room", c.room, true) || !r.boolean(params, "unread", c.unread))
      return false;
    body = std::move(c);
  } else if (method == "rooms.join") {
    RoomsJoinCmd c;
    if (!r.string(params, "room", c.room, true)) return false;
    body = std::move(c);
  } else if (method == "rooms.leave") {
    RoomsLeaveCmd c;
    if (!r.string(params, "room", c.room, true)) return false;
    body = std::move(c);
  } else if (method == "rooms.notify") {
    RoomsNotifyCmd c;
    std::string mode;
    if (!r.string(params, "room", c.room, true) || !r.string(params, "mode", mode, true))
      return false;
    const auto named = notify_mode_named(mode);
    if (!named) return r.fail("mode", "\"all\", \"mentions\" or \"mute\"");
    c.mode = *named;
    body = std::move(c);
  } else {
    error.code = ErrorCode::unknown_command;
    error.message = "unknown command '" + std::string(method) + "'";
    return false;
  }
  return true;
}

}  // namespace

CommandParser::CommandParser(std::size_t max_line_bytes)
    : impl_(std::make_unique<Impl>(Impl{dom::parser(max_line_bytes), max_line_bytes})) {}

CommandParser::~CommandParser() = default;

ParseResult CommandParser::parse(std::string_view line) {
  CommandError error;
  dom::object obj;
  if (!parse_command_object(impl_->parser, line, impl_->max_line_bytes, obj, error)) return error;
  std::uint64_t id = 0;
  if (obj["id"].get(id) != simdjson::SUCCESS || id == 0 ||
      id > std::numeric_limits<std::uint32_t>::max()) {
    error.message = "a command needs \"id\": an integer in 1..4294967295";
    return error;
  }
  error.id = static_cast<std::uint32_t>(id);
  std::string_view method;
  dom::object params;
  std::size_t keys = 0;
  for (auto field : obj) {
    if (field.key == "id") continue;
    ++keys;
    method = field.key;
    if (field.value.get(params) != simdjson::SUCCESS) {
      error.message = std::string(method) + ": expected an object of parameters";
      return error;
    }
  }
  if (keys != 1) {
    error.message = keys == 0 ? "a command needs one key naming it, e.g. {\"id\":1,\"ping\":{}}"
                              : "a command has exactly one key besides \"id\"";
    return error;
  }
  Command cmd;
  cmd.id = error.id;
  if (!parse_body(method, params, cmd.body, error)) return error;
  return cmd;
}

herald::Result<std::string, std::string> CommandParser::normalize_json(std::string_view text) {
  dom::element root;
  if (auto ec = impl_->parser.parse(text.data(), text.size()).get(root); ec) {
    return Fail{std::string("malformed JSON: ") + simdjson::error_message(ec)};
  }
  return simdjson::minify(root);
}

}  // namespace herald::gateway::codec
