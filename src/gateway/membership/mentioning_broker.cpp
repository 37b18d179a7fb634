#include "gateway/membership/mentioning_broker.hpp"

#include <simdjson.h>

#include <string_view>
#include <utility>

#include "gateway/protocol/mentions.hpp"

namespace herald::gateway::membership {

void MentioningBroker::publish(unsigned from, protocol::PublishRequest request,
                               std::function<void(protocol::PublishResult)> done) {
  // Kept only for an in-stream publication: the changes name its position.
  if (request.skip_history) return inner_.publish(from, std::move(request), std::move(done));
  std::string room = request.room, data = request.data_json, info = request.info_json;
  inner_.publish(from, std::move(request),
                 [this, room = std::move(room), data = std::move(data), info = std::move(info),
                  done = std::move(done)](protocol::PublishResult r) {
                   if (!r.error && r.in_stream) keep(room, data, info, r);
                   done(std::move(r));
                 });
}

void MentioningBroker::keep(const std::string& room, const std::string& data_json,
                            const std::string& info_json, const protocol::PublishResult& at) {
  // One parse of each per publication (not per member). Both are the
  // server's own compact JSON: a field that is not there is no change.
  thread_local simdjson::dom::parser parser;
  std::string sender;
  simdjson::dom::element info;
  std::string_view user;
  if (!info_json.empty() && parser.parse(info_json).get(info) == simdjson::SUCCESS &&
      info["user"].get(user) == simdjson::SUCCESS) {
    sender.assign(user);
  }
  std::string text;
  simdjson::dom::element data;
  std::string_view t;
  if (parser.parse(data_json).get(data) == simdjson::SUCCESS && data.is_object() &&
      data["text"].get(t) == simdjson::SUCCESS) {
    text.assign(t);
  }
  for (std::string_view name : protocol::mentioned_users(text, max_mentions_)) {
    if (name == sender) continue;  // one's own publication reads the room instead
    std::string mentioned(name);
    submit(state::AddMention{mentioned, room}, mentioned, room);
  }
  if (!sender.empty()) {
    submit(state::SetRead{sender, room, state::ReadMarker{at.epoch, at.offset}}, sender, room);
  }
}

void MentioningBroker::submit(state::Change change, const std::string& user,
                              const std::string& room) {
  const bool queued = writer_.submit(
      std::move(change), [this, user, room](const Result<state::Outcome, std::string>& r) {
        if (r && *r == state::Outcome::done) told_(user, room);
      });
  if (!queued) dropped_.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace herald::gateway::membership
