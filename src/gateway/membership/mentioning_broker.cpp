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
  // Read now, while the request is at hand: the answer's callback holds
  // the few names it needs, not a copy of the data.
  Keep what = to_keep(request);
  inner_.publish(from, std::move(request),
                 [this, what = std::move(what), done = std::move(done)](protocol::PublishResult r) {
                   if (!r.error && r.in_stream) keep(what, r);
                   done(std::move(r));
                 });
}

MentioningBroker::Keep MentioningBroker::to_keep(const protocol::PublishRequest& request) const {
  // One parse of each per publication (not per member). Both are the
  // server's own compact JSON: a field that is not there is no change.
  thread_local simdjson::dom::parser parser;
  Keep what;
  what.room = request.room;
  simdjson::dom::element info;
  std::string_view user;
  if (!request.info_json.empty() &&
      parser.parse(request.info_json).get(info) == simdjson::SUCCESS &&
      info["user"].get(user) == simdjson::SUCCESS) {
    what.sender.assign(user);
  }
  simdjson::dom::element data;
  std::string_view text;
  if (parser.parse(request.data_json).get(data) == simdjson::SUCCESS && data.is_object() &&
      data["text"].get(text) == simdjson::SUCCESS) {
    for (std::string_view name : protocol::mentioned_users(text, max_mentions_)) {
      // One's own publication reads the room instead.
      if (name != what.sender) what.mentioned.emplace_back(name);
    }
  }
  return what;
}

void MentioningBroker::keep(const Keep& what, const protocol::PublishResult& at) {
  for (const std::string& user : what.mentioned) {
    submit(state::AddMention{user, what.room}, user, what.room);
  }
  if (!what.sender.empty()) {
    submit(state::SetRead{what.sender, what.room, state::ReadMarker{at.epoch, at.offset}},
           what.sender, what.room);
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
