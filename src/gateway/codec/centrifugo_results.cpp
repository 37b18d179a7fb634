#include "gateway/codec/centrifugo_results.hpp"

#include "core/json.hpp"
#include "gateway/protocol/encode.hpp"
#include "gateway/protocol/results.hpp"

namespace herald::gateway::codec::centrifugo {
namespace dom = simdjson::dom;

namespace {

// `"<key>":<the value of field in obj, compact>`, when obj has it.
void append_field(std::string& out, dom::object obj, std::string_view field, std::string_view key) {
  dom::element e;
  if (obj[field].get(e) != simdjson::SUCCESS) return;
  out += ",\"";
  out += key;
  out += "\":";
  out += simdjson::minify(e);
}

}  // namespace

bool parse_object(std::string_view json, dom::object& out) {
  // The encoders run on any shard's thread: each thread has its own parser
  // (allocated once, reused). A parse invalidates the previous one's
  // values, so each is used before the next.
  thread_local dom::parser parser;
  return parser.parse(json.data(), json.size()).get(out) == simdjson::SUCCESS;
}

void append_client_info(std::string& out, dom::object info) {
  // Both are always in Herald's info; a missing one is written empty, as
  // Centrifugo writes an anonymous user.
  std::string_view user;
  std::string_view client;
  if (info["user"].get(user) != simdjson::SUCCESS) user = {};
  if (info["client"].get(client) != simdjson::SUCCESS) client = {};
  out += "{\"user\":";
  json::append_string(out, user);
  out += ",\"client\":";
  json::append_string(out, client);
  append_field(out, info, "info", "conn_info");
  append_field(out, info, "chan_info", "chan_info");
  out += '}';
}

void append_publication(std::string& out, dom::object pub) {
  dom::element data;
  out += "{\"data\":";
  out += pub["data"].get(data) == simdjson::SUCCESS ? simdjson::minify(data) : "null";
  dom::object info;
  if (pub["info"].get(info) == simdjson::SUCCESS) {
    out += ",\"info\":";
    append_client_info(out, info);
  }
  std::uint64_t offset = 0;
  if (pub["offset"].get(offset) == simdjson::SUCCESS && offset != 0) {
    out += ",\"offset\":" + std::to_string(offset);
  }
  dom::object tags;
  if (pub["tags"].get(tags) == simdjson::SUCCESS) {
    out += ",\"tags\":";
    out += simdjson::minify(tags);
  }
  out += '}';
}

void append_publications(std::string& out, const std::vector<fanout::MessagePtr>& pubs) {
  out += "\"publications\":[";
  bool first = true;
  for (const fanout::MessagePtr& m : pubs) {
    // The broker stores only {"pub":...} lines: the publication is read
    // where it stands in one.
    dom::object pub;
    if (!parse_object(protocol::publication_in_push(m->text), pub)) continue;
    if (!first) out += ',';
    first = false;
    append_publication(out, pub);
  }
  out += ']';
}

std::optional<std::uint32_t> history_limit(std::optional<std::int64_t> limit) {
  if (limit && *limit < 0) return std::nullopt;
  // Safety: the readers bound limit to [-1, INT32_MAX], so it fits.
  return static_cast<std::uint32_t>(limit.value_or(0));
}

std::string history_result(const protocol::HistoryResult& r) {
  std::string out = "{";
  append_publications(out, r.publications);
  out += ",\"epoch\":";
  json::append_string(out, r.epoch);
  out += ",\"offset\":" + std::to_string(r.offset) + '}';
  return out;
}

std::string presence_result(const protocol::PresenceResult& r) {
  std::string out = "{\"presence\":{";
  bool first = true;
  for (const protocol::PresenceEntry& e : r.clients) {
    dom::object info;
    if (!parse_object(e.info_json, info)) continue;
    if (!first) out += ',';
    first = false;
    json::append_string(out, e.client);
    out += ':';
    append_client_info(out, info);
  }
  return out + "}}";
}

std::string presence_stats_result(const protocol::PresenceResult& r) {
  return "{\"num_clients\":" + std::to_string(r.clients.size()) +
         ",\"num_users\":" + std::to_string(protocol::distinct_users(r)) + '}';
}

}  // namespace herald::gateway::codec::centrifugo
