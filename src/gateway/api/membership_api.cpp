#include "gateway/api/membership_api.hpp"

#include <simdjson.h>

#include <string>
#include <string_view>

#include "core/json.hpp"
#include "gateway/api/http_api.hpp"
#include "gateway/api/json_body.hpp"
#include "gateway/client/client.hpp"
#include "gateway/membership/notify_mode.hpp"
#include "gateway/protocol/room_list_push.hpp"
#include "gateway/protocol/room_name.hpp"
#include "gateway/protocol/user_name.hpp"

namespace herald::gateway::api {
namespace beast_http = boost::beast::http;
namespace dom = simdjson::dom;
using Respond = http::HttpRouter::Respond;

namespace {

http::HttpResponse refused(beast_http::status status, std::string_view code,
                           std::string_view message) {
  return http::make_error_response(status, code, message);
}
http::HttpResponse bad_request(std::string_view message) {
  return refused(beast_http::status::bad_request, "bad_request", message);
}

// The body's fields: "room" and "user", each when `want_*`, checked as
// names; "invited" and "direct" when present. Empty on success, else the
// error.
struct Fields {
  std::string room, user;
  bool invited = false;
  bool direct = false;
};
std::optional<http::HttpResponse> read_fields(const http::HttpRequest& req, bool want_room,
                                              bool want_user, Fields& out) {
  dom::parser parser;
  auto obj = parse_json_object(parser, req.body());
  if (!obj) return bad_request(obj.error());
  std::string_view v;
  if (want_room) {
    if ((*obj)["room"].get(v) != simdjson::SUCCESS) return bad_request("room: expected a string");
    out.room.assign(v);
    if (auto e = protocol::room_name_error(out.room)) return bad_request("room: " + *e);
  }
  if (want_user) {
    if ((*obj)["user"].get(v) != simdjson::SUCCESS || !protocol::valid_user_name(v))
      return bad_request("user: expected a user name (1-64 bytes)");
    out.user.assign(v);
  }
  dom::element e;
  if ((*obj)["invited"].get(e) == simdjson::SUCCESS && e.get(out.invited) != simdjson::SUCCESS)
    return bad_request("invited: expected a boolean");
  if ((*obj)["direct"].get(e) == simdjson::SUCCESS && e.get(out.direct) != simdjson::SUCCESS)
    return bad_request("direct: expected a boolean");
  return std::nullopt;
}

// What a change's outcome answers.
http::HttpResponse answer(const Result<state::Outcome, std::string>& r,
                          const state::MembershipStore::Options& limits, const Fields& f) {
  using state::Outcome;
  if (!r) {
    // The store refused the whole batch: its map is full (state.max_bytes),
    // or the disk failed.
    const bool full = r.error().find("state.max_bytes") != std::string::npos;
    return refused(
        full ? beast_http::status::insufficient_storage : beast_http::status::internal_server_error,
        full ? "limit_exceeded" : "internal", r.error());
  }
  switch (*r) {
    case Outcome::done:
      return json_ok(R"({"changed":true})");
    case Outcome::unchanged:
      return json_ok(R"({"changed":false})");
    case Outcome::too_many_rooms:
      return refused(beast_http::status::too_many_requests, "limit_exceeded",
                     "state.max_rooms_per_user (" + std::to_string(limits.max_rooms_per_user) +
                         ") reached: user '" + f.user + "' is in that many rooms");
    case Outcome::too_many_members:
      return refused(beast_http::status::too_many_requests, "limit_exceeded",
                     "state.max_members_per_room (" + std::to_string(limits.max_members_per_room) +
                         ") reached: room '" + f.room + "' has that many members");
    case Outcome::not_member:
    case Outcome::bad_name:
    case Outcome::bad_value:
      break;
  }
  return bad_request("room '" + f.room + "', user '" + f.user + "': not a membership change");
}

const char* state_name(state::MemberState s) {
  return s == state::MemberState::invited ? "invited" : "joined";
}
std::string rooms_json(const std::vector<state::Membership>& rooms) {
  std::string out = R"({"rooms":[)";
  for (std::size_t i = 0; i < rooms.size(); ++i) {
    const state::Membership& m = rooms[i];
    if (i != 0) out += ',';
    out += R"({"room":)";
    json::append_string(out, m.room);
    out += R"(,"state":")";
    out += state_name(m.state);
    out += R"(","read":{"epoch":)";
    json::append_string(out, m.read.epoch);
    out += R"(,"offset":)" + std::to_string(m.read.offset) + "}";
    out += R"(,"mentions":)" + std::to_string(m.mentions);
    auto flag = [&](const char* name, std::uint16_t bit) {
      out += ",\"";
      out += name;
      out += (m.flags & bit) != 0 ? "\":true" : "\":false";
    };
    flag("favourite", state::kFavourite);
    flag("low_priority", state::kLowPriority);
    flag("marked_unread", state::kMarkedUnread);
    flag("direct", state::kDirect);
    out += R"(,"notify":")";
    out += protocol::notify_mode_name(membership::live_notify_mode(m.notify));
    out += "\"}";
  }
  return out + "]}";
}

}  // namespace

void register_membership_api(http::HttpRouter& router, ServerState& state,
                             const state::MembershipStore* store, state::Writer* writer) {
  // Every method: the key check, then 501 without a store.
  auto route = [&router, &state, store](const std::string& path, auto handler) {
    router.add_async(
        beast_http::verb::post, path,
        [&state, store, handler](const http::HttpRequest& req, unsigned shard, Respond respond) {
          if (!admit_api_request(state, req, respond)) return;
          if (store == nullptr) {
            return respond(refused(beast_http::status::not_implemented, "not_available",
                                   "room memberships are kept only with state.dir "
                                   "set (docs/configuration.md)"));
          }
          handler(req, shard, std::move(respond));
        });
  };
  // A change: answered once its batch is committed, on the request's shard.
  auto change = [&state, store, writer](bool join) {
    return [&state, store, writer, join](const http::HttpRequest& req, unsigned shard,
                                         Respond respond) {
      Fields f;
      if (auto bad = read_fields(req, true, true, f)) return respond(std::move(*bad));
      state::Change c;
      if (join) {
        c = state::Join{f.user, f.room,
                        f.invited ? state::MemberState::invited : state::MemberState::joined,
                        f.direct};
      } else {
        c = state::Leave{f.user, f.room};
      }
      Respond on_shard = respond_on_shard(state, shard, std::move(respond));
      if (!writer->submit(std::move(c), [&state, on_shard, store,
                                         f](const Result<state::Outcome, std::string>& r) {
            on_shard(answer(r, store->options(), f));
            // The user's connections watching their room list show it.
            if (r && *r == state::Outcome::done && state.each_client_of) {
              state.each_client_of(f.user, [room = f.room](client::Client& connection) {
                connection.membership_changed(room);
              });
            }
          })) {
        on_shard(refused(beast_http::status::service_unavailable, "unavailable",
                         state::Writer::kQueueFull));
      }
    };
  };
  route("/api/members_add", change(true));
  route("/api/members_remove", change(false));
  route("/api/members", [store](const http::HttpRequest& req, unsigned, const Respond& respond) {
    Fields f;
    if (auto bad = read_fields(req, true, false, f)) return respond(std::move(*bad));
    auto users = store->members_of(f.room);
    if (!users)
      return respond(refused(beast_http::status::internal_server_error, "internal", users.error()));
    std::string out = R"({"users":[)";
    for (std::size_t i = 0; i < users->size(); ++i) {
      if (i != 0) out += ',';
      json::append_string(out, (*users)[i]);
    }
    respond(json_ok(out + "]}"));
  });
  route("/api/user_rooms", [store](const http::HttpRequest& req, unsigned, const Respond& respond) {
    Fields f;
    if (auto bad = read_fields(req, false, true, f)) return respond(std::move(*bad));
    auto rooms = store->rooms_of(f.user);
    if (!rooms)
      return respond(refused(beast_http::status::internal_server_error, "internal", rooms.error()));
    respond(json_ok(rooms_json(*rooms)));
  });
}

}  // namespace herald::gateway::api
