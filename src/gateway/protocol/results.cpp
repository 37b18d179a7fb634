#include "gateway/protocol/results.hpp"

#include <algorithm>
#include <string_view>
#include <vector>

#include "core/json.hpp"
#include "gateway/protocol/client_object.hpp"
#include "gateway/protocol/encode.hpp"

namespace herald::gateway::protocol {
namespace {

// "publications":[...], each the publication inside its stored push frame.
void append_publications(std::string& out, const std::vector<fanout::MessagePtr>& pubs) {
  out += "\"publications\":[";
  for (std::size_t i = 0; i < pubs.size(); ++i) {
    if (i) out += ',';
    out += publication_in_push(pubs[i]->text);
  }
  out += ']';
}

void append_position(std::string& out, std::string_view epoch, std::uint64_t offset) {
  out += "{\"epoch\":";
  json::append_string(out, epoch);
  out += ",\"offset\":" + std::to_string(offset);
}

}  // namespace

std::string subscribe_result(const SubscribeResult& r, std::string_view data_json) {
  std::string out;
  append_position(out, r.epoch, r.offset);
  // Without a since position "recovered" is false: the client starts live
  // at `offset`.
  out += std::string(",\"recovered\":") + (r.recovered ? "true" : "false") + ",";
  if (!data_json.empty()) {
    out += "\"data\":";
    out += data_json;
    out += ',';
  }
  append_publications(out, r.publications);
  return out + "}";
}

std::string history_result(const HistoryResult& r) {
  std::string out;
  append_position(out, r.epoch, r.offset);
  out += ',';
  append_publications(out, r.publications);
  return out + "}";
}

void append_connection_identity(std::string& out, std::string_view client, std::string_view user) {
  open_client_object(out, client, user);
  out += ",\"version\":";
  json::append_string(out, HERALD_VERSION);
}

std::string publish_result(const PublishResult& r) {
  if (!r.in_stream) return "{}";
  std::string out = "{\"offset\":" + std::to_string(r.offset) + ",\"epoch\":";
  json::append_string(out, r.epoch);
  return out + "}";
}

std::string presence_result(const PresenceResult& r) {
  std::string out = "{\"clients\":[";
  for (std::size_t i = 0; i < r.clients.size(); ++i) {
    if (i) out += ',';
    out += r.clients[i].info_json;
  }
  return out + "]}";
}

std::size_t distinct_users(const PresenceResult& r) {
  std::vector<std::string_view> users;
  users.reserve(r.clients.size());
  for (const auto& c : r.clients) users.push_back(c.user);
  std::sort(users.begin(), users.end());
  // Safety: unique returns an iterator in [begin, end]: the difference is >= 0.
  return static_cast<std::size_t>(std::unique(users.begin(), users.end()) - users.begin());
}

std::string presence_stats_result(const PresenceResult& r) {
  return "{\"clients\":" + std::to_string(r.clients.size()) +
         ",\"users\":" + std::to_string(distinct_users(r)) + "}";
}

}  // namespace herald::gateway::protocol
