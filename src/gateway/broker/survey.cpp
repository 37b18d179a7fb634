#include "gateway/broker/survey.hpp"

#include "gateway/broker/redis_schema.hpp"

namespace herald::gateway::broker {

Survey::Survey(boost::asio::io_context& io, Publish publish, std::chrono::milliseconds timeout)
    : io_(io), publish_(std::move(publish)), timeout_(timeout) {}

void Survey::ask(const std::string& self, std::set<std::string> others, const std::string& question,
                 Done done) {
  others.erase(self);
  if (others.empty()) return done({});
  const std::uint64_t id = next_id_++;
  auto timer = std::make_unique<boost::asio::steady_timer>(io_, timeout_);
  timer->async_wait([this, id](boost::system::error_code ec) {
    if (ec) return;
    auto it = pending_.find(id);
    if (it == pending_.end()) return;
    std::string missing;
    for (const std::string& node : it->second.waiting) {
      if (!missing.empty()) missing += ", ";
      missing += node;
    }
    finish(id, "no answer within " + std::to_string(timeout_.count()) + " ms from " + missing);
  });
  pending_.emplace(id, Pending{std::move(others), {}, std::move(done), std::move(timer)});
  publish_(redis_schema::survey_question(self, id, question));
}

bool Survey::on_message(const std::string& self, std::string_view payload) {
  auto m = redis_schema::parse_survey_message(payload);
  if (!m) return false;
  if (!m->answer) {
    // Every node hears its own questions too: it answers itself directly.
    if (m->asker != self && responder_) {
      publish_(redis_schema::survey_answer(m->asker, m->id, self, responder_(m->body)));
    }
    return true;
  }
  if (m->asker != self) return true;  // another node's survey
  auto it = pending_.find(m->id);
  if (it == pending_.end() || it->second.waiting.erase(std::string(m->answerer)) == 0) {
    return true;  // late (timed out), or a node not asked or heard twice
  }
  it->second.result.answers.emplace_back(std::string(m->answerer), std::string(m->body));
  if (it->second.waiting.empty()) finish(m->id, std::nullopt);
  return true;
}

void Survey::finish(std::uint64_t id, std::optional<std::string> error) {
  auto it = pending_.find(id);
  Pending p = std::move(it->second);
  pending_.erase(it);
  p.timer->cancel();
  if (error) p.result = {std::move(error), {}};
  p.done(std::move(p.result));
}

}  // namespace herald::gateway::broker
