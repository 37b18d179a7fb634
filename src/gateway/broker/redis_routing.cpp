// Where the cluster broker sends a room's commands: to the Redis server a
// consistent hash of the room picks (plain servers), or to the master of
// its slot (Redis Cluster), following the MOVED and ASK redirections a
// Redis Cluster answers while slots migrate (docs/cluster.md, "Resharding
// while running"). Members of RedisBroker; they run on its thread.
#include <boost/asio/steady_timer.hpp>

#include <algorithm>

#include "core/log.hpp"
#include "gateway/broker/redis_broker.hpp"

namespace herald::gateway {
namespace {

// An error reply made here, for a command that could not be sent where
// Redis redirected it.
redis::Reply error_reply(std::string text) {
  redis::Reply e;
  e.type = redis::Reply::Type::error;
  e.str = std::move(text);
  return e;
}

}  // namespace

std::size_t RedisBroker::shard_of(const std::string& room) const {
  if (slot_owner_.empty()) return ring_->shard_of(room);
  return slot_owner_[key_slot(redis_schema::room_keys(cluster_.key_prefix, room).meta)];
}

std::size_t RedisBroker::registry_shard() const {
  if (slot_owner_.empty()) return ring_->shard_of(nodes_key_);
  return slot_owner_[key_slot(nodes_key_)];
}

void RedisBroker::execute(const std::string& room, std::vector<redis::Command> pipeline,
                          redis::Client::Done done) {
  route(shard_of(room), std::move(pipeline), std::move(done));
}

void RedisBroker::route(std::size_t shard, std::vector<redis::Command> pipeline,
                        redis::Client::Done done) {
  // Plain servers never redirect: no copy of the pipeline is kept.
  if (slot_owner_.empty()) return clients_[shard]->execute(std::move(pipeline), std::move(done));
  auto kept = std::make_shared<const std::vector<redis::Command>>(pipeline);
  clients_[shard]->execute(
      std::move(pipeline), [this, shard, kept, done = std::move(done)](redis::Result r) mutable {
        std::vector<std::size_t> redirected;
        if (r.ok()) {
          for (std::size_t i = 0; i < r.replies.size(); ++i)
            if (parse_redirect(r.replies[i])) redirected.push_back(i);
        }
        if (redirected.empty()) return done(std::move(r));
        // The other replies stand; each redirected command completes on its
        // own, and the last one to complete hands the whole result over.
        struct Pending {
          redis::Result result;
          std::size_t left;
          redis::Client::Done done;
        };
        auto pending =
            std::make_shared<Pending>(Pending{std::move(r), redirected.size(), std::move(done)});
        for (std::size_t i : redirected) {
          redis::Reply answer = std::move(pending->result.replies[i]);
          redirect((*kept)[i], shard, std::move(answer), 1, [pending, i](redis::Reply final_reply) {
            pending->result.replies[i] = std::move(final_reply);
            if (--pending->left == 0) pending->done(std::move(pending->result));
          });
        }
      });
}

void RedisBroker::redirect(redis::Command cmd, std::size_t from, redis::Reply answer,
                           std::uint32_t hop, std::function<void(redis::Reply)> reply) {
  auto to = parse_redirect(answer);
  if (!to) return reply(std::move(answer));
  if (hop > cluster_.redis_max_redirects) {
    return reply(error_reply("redirected more than " +
                             std::to_string(cluster_.redis_max_redirects) +
                             " times (cluster.redis.max_redirects); last: " + answer.str));
  }
  if (to->to.host.empty()) to->to.host = endpoints_[from].host;
  std::size_t target = 0;
  if (auto known = shard_at(to->to)) {
    target = *known;
  } else {
    // A master that joined the cluster after start-up (or a promoted
    // replica): connected now, used once ready.
    log::info("cluster: connecting to a master met in a redirection",
              {{"master", to->to.to_string()}, {"redirection", answer.str}});
    target = add_client(to->to);
    clients_[target]->start();
  }
  const bool moved = to->kind == Redirect::Kind::moved;
  auto reply_ptr = std::make_shared<std::function<void(redis::Reply)>>(std::move(reply));
  auto send = [this, cmd = std::move(cmd), target, hop, moved, reply_ptr, slot = to->slot]() {
    std::vector<redis::Command> pipeline;
    if (moved) {
      // Moved once the new owner can take commands, so that no other
      // command of the slot goes to a master not yet connected.
      slot_owner_[slot] = static_cast<std::uint16_t>(target);
      refresh_slots(target);
    } else {
      pipeline.push_back({"ASKING"});
    }
    pipeline.push_back(cmd);
    clients_[target]->execute(
        std::move(pipeline), [this, cmd, target, hop, reply_ptr](redis::Result r) mutable {
          if (!r.ok()) return (*reply_ptr)(error_reply(r.error));
          redis::Reply last = std::move(r.replies.back());
          redirect(std::move(cmd), target, std::move(last), hop + 1, std::move(*reply_ptr));
        });
  };
  when_ready(target, std::move(send),
             [reply_ptr, where = to->to.to_string(), why = answer.str](const std::string& error) {
               (*reply_ptr)(error_reply(why + ": " + where + " " + error));
             });
}

// A command waiting for a shard's connection: whichever comes first,
// readiness or the timeout, runs; the other finds `done` set.
struct RedisBroker::ReadyWait {
  explicit ReadyWait(boost::asio::io_context& io) : timer(io) {}
  boost::asio::steady_timer timer;
  std::function<void()> send;
  bool done = false;
};

void RedisBroker::when_ready(std::size_t shard, std::function<void()> send,
                             std::function<void(std::string)> fail) {
  if (clients_[shard]->ready()) return send();
  auto& waiting = waiting_ready_[shard];
  // Timed-out waits leave now: the list holds live waits only, at most one
  // per command in flight.
  std::erase_if(waiting, [](const auto& w) { return w->done; });
  auto wait = std::make_shared<ReadyWait>(io_);
  wait->send = std::move(send);
  waiting.push_back(wait);
  wait->timer.expires_after(cluster_.redis.command_timeout);
  wait->timer.async_wait([this, wait, shard, fail = std::move(fail)](boost::system::error_code ec) {
    if (ec || wait->done) return;
    wait->done = true;
    fail("not connected within cluster.redis.command_timeout (" + clients_[shard]->last_error() +
         ")");
  });
}

void RedisBroker::run_waiting(std::size_t shard) {
  std::vector<std::shared_ptr<ReadyWait>> waiting = std::move(waiting_ready_[shard]);
  waiting_ready_[shard].clear();
  for (auto& w : waiting) {
    if (w->done) continue;
    w->done = true;
    w->timer.cancel();
    w->send();
  }
}

void RedisBroker::refresh_slots(std::size_t shard) {
  if (refreshing_slots_) return;
  refreshing_slots_ = true;
  clients_[shard]->execute({{"CLUSTER", "SLOTS"}}, [this, shard](redis::Result r) {
    refreshing_slots_ = false;
    // Failed: the MOVED slot is moved already; others move on their own MOVED.
    if (!r.ok() || r.replies.empty()) return;
    auto map = parse_cluster_slots(r.replies[0]);
    if (!map) return;
    for (auto& m : map->masters)
      if (m.host.empty()) m.host = endpoints_[shard].host;
    std::vector<std::optional<std::size_t>> index;
    for (const auto& m : map->masters) index.push_back(shard_at(m));
    std::size_t moved = 0;
    for (std::size_t slot = 0; slot < kClusterSlots; ++slot) {
      const auto& k = index[map->owner[slot]];
      if (k && slot_owner_[slot] != *k) {
        slot_owner_[slot] = static_cast<std::uint16_t>(*k);
        ++moved;
      }
    }
    log::info("cluster: slot map re-read after a MOVED redirection",
              {{"from", endpoints_[shard].to_string()}, {"slots_moved", moved}});
  });
}

std::optional<std::size_t> RedisBroker::shard_at(const config::Endpoint& master) const {
  for (std::size_t k = 0; k < endpoints_.size(); ++k)
    if (endpoints_[k] == master) return k;
  return std::nullopt;
}

}  // namespace herald::gateway
