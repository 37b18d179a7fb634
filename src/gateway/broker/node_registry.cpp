#include "gateway/broker/node_registry.hpp"

#include <algorithm>

#include "core/log.hpp"
#include "gateway/broker/redis_schema.hpp"

namespace herald::gateway::broker {

NodeRegistry::NodeRegistry(boost::asio::io_context& io, Link link, std::string key,
                           std::chrono::milliseconds interval, std::chrono::milliseconds ttl)
    : link_(std::move(link)), key_(std::move(key)), interval_(interval), ttl_(ttl), timer_(io) {}

void NodeRegistry::start(ClusterNode self, Report report, Listener listener) {
  self_ = std::move(self);
  report_ = std::move(report);
  listener_ = std::move(listener);
  running_ = true;
  beat();
  schedule();
}

void NodeRegistry::schedule() {
  timer_.expires_after(interval_);
  timer_.async_wait([this](boost::system::error_code ec) {
    if (ec || !running_) return;
    beat();
    schedule();
  });
}

void NodeRegistry::beat() {
  if (!running_ || !link_.ready()) return;
  if (report_) std::tie(self_.connections, self_.stats) = report_();
  const std::string body =
      redis_schema::node_body(self_.connections, self_.host, self_.port, self_.stats);
  link_.execute({{"EVALSHA", redis_schema::kNodesScript.sha(), "1", key_, self_.id,
                  std::to_string(ttl_.count()), body, "0"}},
                [this](redis::Result r) {
                  if (!running_ || !r.ok() || r.replies.empty() || r.replies[0].is_error()) return;
                  std::vector<ClusterNode> nodes;
                  const auto& e = r.replies[0].elements;
                  for (std::size_t i = 0; i + 1 < e.size(); i += 2) {
                    auto v = redis_schema::parse_node_value(e[i + 1].str);
                    if (!v) continue;  // not written by Herald: left out
                    nodes.push_back(ClusterNode{e[i].str, std::string(v->host), v->port,
                                                v->connections, std::move(v->stats)});
                  }
                  std::sort(nodes.begin(), nodes.end(),
                            [](const ClusterNode& a, const ClusterNode& b) { return a.id < b.id; });
                  // The stats move with every subscription: only a change discovery
                  // serves rebuilds its zone.
                  auto served = [](const ClusterNode& a, const ClusterNode& b) {
                    return a.id == b.id && a.host == b.host && a.port == b.port &&
                           a.connections == b.connections;
                  };
                  const bool changed = !std::ranges::equal(nodes, last_, served);
                  if (nodes.size() != last_.size())
                    log::info("cluster nodes", {{"live", nodes.size()}, {"self", self_.id}});
                  last_ = std::move(nodes);
                  if (changed && listener_) listener_(last_);
                });
}

void NodeRegistry::stop(std::function<void()> done) {
  const bool was_running = running_;
  running_ = false;
  timer_.cancel();
  if (!was_running || !link_.ready()) return done();
  link_.execute({{"EVALSHA", redis_schema::kNodesScript.sha(), "1", key_, self_.id,
                  std::to_string(ttl_.count()), "", "1"}},
                [done = std::move(done)](const redis::Result&) { done(); });
}

}  // namespace herald::gateway::broker
