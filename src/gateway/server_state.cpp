#include "gateway/server_state.hpp"

#include <boost/asio/post.hpp>

#include "gateway/client/client.hpp"
#include "gateway/shard_pool.hpp"
#include "gateway/ws/write_cork.hpp"

namespace herald::gateway {

ShardState::ShardState(unsigned shard_index, boost::asio::io_context& ctx,
                       std::chrono::nanoseconds write_delay)
    : client::ShardCore(shard_index), cork(std::make_unique<ws::WriteCork>(ctx, write_delay)) {}

ShardState::~ShardState() = default;

broker::NodeStats ServerState::node_stats() const {
  const client::NodeCensus::Counts c = census.counts();
  return {c.clients, c.users, c.rooms, c.subscriptions, started_unix_s, HERALD_VERSION};
}

void ServerState::for_each_client_of(unsigned shard, std::string user, std::string client,
                                     std::function<bool(client::Client&)> act,
                                     std::function<void(std::size_t)> done) {
  struct Pending {
    std::size_t hit = 0;
    unsigned left;
    std::function<void(std::size_t)> done;
  };
  struct Job {
    std::string user, client;
    std::function<bool(client::Client&)> act;
  };
  ShardPool& shard_pool = *pool;
  auto pending = std::make_shared<Pending>(Pending{0, shard_pool.size(), std::move(done)});
  auto job = std::make_shared<const Job>(Job{std::move(user), std::move(client), std::move(act)});
  for (unsigned s = 0; s < shard_pool.size(); ++s) {
    boost::asio::post(shard_pool[s].ctx, [this, &shard_pool, s, shard, pending, job] {
      // Collected first: acting may close a client, which edits the set.
      std::vector<client::Client*> hit;
      for (client::Client* c : shards[s]->clients) {
        if (c->user() == job->user && (job->client.empty() || c->id() == job->client)) {
          hit.push_back(c);
        }
      }
      std::size_t acted = 0;
      for (client::Client* c : hit) acted += job->act(*c) ? 1 : 0;
      if (!pending->done) return;
      boost::asio::post(shard_pool[shard].ctx, [pending, acted] {
        pending->hit += acted;
        if (--pending->left == 0) pending->done(pending->hit);
      });
    });
  }
}

}  // namespace herald::gateway
