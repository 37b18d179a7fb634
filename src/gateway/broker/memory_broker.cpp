#include "gateway/broker/memory_broker.hpp"

#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "core/random.hpp"
#include "core/time/steady_clock.hpp"
#include "gateway/broker/idempotency_window.hpp"
#include "gateway/broker/publication_ring.hpp"
#include "gateway/limits/token_bucket.hpp"
#include "gateway/protocol/encode.hpp"

namespace herald::gateway::broker {
namespace asio = boost::asio;

struct MemoryBroker::Room {
  Room(std::string e, const RoomOptions& o, unsigned shards, std::int64_t now)
      : epoch(std::move(e)),
        ring(o.history_size),
        per_shard(shards, 0),
        join_leave(o.join_leave_rate, o.join_leave_rate, now) {}
  std::string epoch;
  std::uint64_t top = 0;                 // offset of the newest publication (0: none yet)
  PublicationRing ring;                  // allocates with its first publication
  std::vector<std::uint32_t> per_shard;  // subscriptions and follows by shard
  std::uint32_t subscribers = 0;
  std::uint32_t followers = 0;  // room lists' follows (SubscribeRequest::follow)
  std::unordered_map<std::string, protocol::PresenceEntry> presence;  // by client id
  std::int64_t last_active_ns = 0;
  limits::TokenBucket join_leave;  // join and leave pushes: rooms.join_leave_rate
  // Keyed publishes of the last minutes; null until a publish names a key.
  std::unique_ptr<IdempotencyWindow> idempotent;
};

struct MemoryBroker::Home {
  explicit Home(asio::io_context& ctx, std::uint64_t s) : timer(ctx), seed(s) {}
  RoomMap rooms;
  asio::steady_timer timer;
  std::uint64_t seed;
  // Moves when a room that had publications is freed (memory_broker.hpp:
  // Epochs).
  std::uint64_t generation = 0;

  // The epoch a room named `name` starts with now: 8 hex digits of a hash
  // of the name, the seed and the generation.
  [[nodiscard]] std::string epoch_for(std::string_view name) const {
    static constexpr char kHex[] = "0123456789abcdef";
    std::uint64_t v = mix(seed ^ mix(std::hash<std::string_view>{}(name) + generation));
    std::string e(8, '0');
    for (char& c : e) c = kHex[(v >>= 4) & 0xf];
    return e;
  }

 private:
  // splitmix64's finalizer: every input bit reaches every output bit.
  static std::uint64_t mix(std::uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
};

namespace {

std::int64_t ttl_ns(const RoomOptions& o) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(o.history_ttl).count();
}

}  // namespace

MemoryBroker::MemoryBroker(const Options& options, ShardPool& pool, Delivery deliver,
                           metrics::Registry& registry)
    : options_(options),
      pool_(pool),
      deliver_(std::move(deliver)),
      counters_(registry),
      budget_(options.max_rooms, registry) {
  for (unsigned i = 0; i < pool_.size(); ++i) {
    homes_.push_back(std::make_unique<Home>(pool_[i].ctx, random::entropy64() ^ i));
  }
}

MemoryBroker::~MemoryBroker() = default;

unsigned MemoryBroker::home_of(std::string_view room) const {
  return static_cast<unsigned>(std::hash<std::string_view>{}(room) % pool_.size());
}

void MemoryBroker::start() {
  for (unsigned i = 0; i < pool_.size(); ++i) {
    asio::post(pool_[i].ctx, [this, i] { sweep(i); });
  }
}

void MemoryBroker::stop() {
  for (unsigned i = 0; i < pool_.size(); ++i) {
    asio::post(pool_[i].ctx, [this, i] { homes_[i]->timer.cancel(); });
  }
}

MemoryBroker::RoomMap::iterator MemoryBroker::open_room(Home& home, const std::string& name,
                                                        const RoomOptions& options) {
  auto it = home.rooms.find(name);
  if (it != home.rooms.end()) return it;
  if (!budget_.try_acquire()) return home.rooms.end();
  return home.rooms.try_emplace(name, home.epoch_for(name), options, pool_.size(), steady_now_ns())
      .first;
}

void MemoryBroker::free_if_empty(Home& home, RoomMap::iterator it) {
  const Room& r = it->second;
  if (r.subscribers == 0 && r.followers == 0 && r.top == 0) free_room(home, it);
}

MemoryBroker::RoomMap::iterator MemoryBroker::free_room(Home& home, RoomMap::iterator it) {
  // A room that had publications may not come back with its epoch: a
  // client holding a position in it would read the new stream as its own.
  if (it->second.top != 0) ++home.generation;
  budget_.release();
  return home.rooms.erase(it);
}

void MemoryBroker::push_presence(Room& room, const std::string& name, bool join,
                                 const std::string& info) {
  if (!room.join_leave.take(steady_now_ns())) {
    counters_.join_leave_dropped.inc();
    return;
  }
  fan_out(room, name, fanout::make_message(protocol::encode_presence_push(join, name, info)));
}

void MemoryBroker::fan_out(const Room& room, const std::string& name,
                           const fanout::MessagePtr& frame) {
  // One post per shard that has subscribers, whatever their number there:
  // the shard's hub hands the same frame to each of them.
  for (unsigned s = 0; s < room.per_shard.size(); ++s) {
    if (room.per_shard[s] == 0) continue;
    asio::post(pool_[s].ctx, [this, s, name, frame] { deliver_(s, name, frame); });
  }
}

void MemoryBroker::sweep(unsigned shard) {
  Home& home = *homes_[shard];
  const std::int64_t now = steady_now_ns();
  for (auto it = home.rooms.begin(); it != home.rooms.end();) {
    Room& room = it->second;
    const std::int64_t ttl = ttl_ns(options_.room_options(it->first));
    room.ring.expire(now - ttl);
    if (room.idempotent) {
      room.idempotent->expire(now);
      if (room.idempotent->empty()) room.idempotent.reset();
    }
    // A room nobody watches and whose history has expired is forgotten (an
    // empty one went when its last subscriber left); it comes back with a
    // new epoch (free_room), so old positions read as unrecoverable.
    if (room.subscribers == 0 && room.followers == 0 && room.ring.empty() &&
        now - room.last_active_ns > ttl) {
      it = free_room(home, it);
    } else {
      ++it;
    }
  }
  home.timer.expires_after(std::chrono::seconds(1));
  home.timer.async_wait([this, shard](boost::system::error_code ec) {
    if (!ec) sweep(shard);
  });
}

void MemoryBroker::publish(unsigned from, protocol::PublishRequest req,
                           std::function<void(protocol::PublishResult)> done) {
  unsigned h = home_of(req.room);
  asio::post(pool_[h].ctx, [this, h, from, req = std::move(req), done = std::move(done)]() mutable {
    Home& home = *homes_[h];
    if (req.skip_history) return publish_live(home, from, req, std::move(done));
    const RoomOptions& opts = options_.room_options(req.room);
    auto it = open_room(home, req.room, opts);
    if (it == home.rooms.end()) {
      protocol::PublishResult refused;
      refused.error = budget_.refusal(req.room);
      return reply(from, std::move(done), std::move(refused));
    }
    Room& room = it->second;
    const std::int64_t now = steady_now_ns();
    room.last_active_ns = now;
    const std::string& key = req.idempotency_key;
    if (!key.empty() && room.idempotent) {
      if (auto first = room.idempotent->find(key, now)) {
        protocol::PublishResult again;
        again.offset = *first;
        again.epoch = room.epoch;
        return reply(from, std::move(done), std::move(again));
      }
    }
    const std::uint64_t offset = ++room.top;
    if (!key.empty()) {
      if (!room.idempotent) room.idempotent = std::make_unique<IdempotencyWindow>();
      room.idempotent->remember(key, offset, now);
    }
    // Encoded once; the same immutable frame goes to history and to every
    // shard with subscribers.
    fanout::MessagePtr frame = fanout::make_message(
        protocol::encode_pub_push(req.room, offset, room.epoch, req.data_json, req.info_json,
                                  req.moderation_json, req.tags_json),
        now);
    room.ring.expire(now - ttl_ns(opts));
    room.ring.push(StoredPublication{offset, now, frame});
    counters_.publications.inc();
    fan_out(room, it->first, frame);
    protocol::PublishResult result;
    result.offset = offset;
    result.epoch = room.epoch;
    reply(from, std::move(done), std::move(result));
  });
}

void MemoryBroker::publish_live(Home& home, unsigned from, const protocol::PublishRequest& req,
                                std::function<void(protocol::PublishResult)> done) {
  // Outside the stream: the offset, the ring and the epoch stay as they
  // are. A room that is not open has no subscribers to reach.
  auto it = home.rooms.find(req.room);
  if (it != home.rooms.end()) {
    const std::int64_t now = steady_now_ns();
    it->second.last_active_ns = now;
    fan_out(
        it->second, it->first,
        fanout::make_message(protocol::encode_live_pub_push(req.room, req.data_json, req.info_json,
                                                            req.moderation_json, req.tags_json),
                             now));
  }
  counters_.publications.inc();
  protocol::PublishResult result;
  result.in_stream = false;
  reply(from, std::move(done), std::move(result));
}

void MemoryBroker::subscribe(unsigned from, protocol::SubscribeRequest req,
                             std::function<void(protocol::SubscribeResult)> done) {
  unsigned h = home_of(req.room);
  asio::post(pool_[h].ctx, [this, h, from, req = std::move(req), done = std::move(done)]() mutable {
    Home& home = *homes_[h];
    const RoomOptions& opts = options_.room_options(req.room);
    protocol::SubscribeResult result;
    auto it = open_room(home, req.room, opts);
    if (it == home.rooms.end()) {
      result.error = budget_.refusal(req.room);
      return reply(from, std::move(done), std::move(result));
    }
    Room& room = it->second;
    if (!req.follow && opts.max_subscribers != 0 && room.subscribers >= opts.max_subscribers) {
      result.error = protocol::BrokerError{
          protocol::ErrorCode::limit_exceeded,
          "room is full (max_subscribers " + std::to_string(opts.max_subscribers) + ")"};
    } else {
      const std::int64_t now = steady_now_ns();
      room.last_active_ns = now;
      room.ring.expire(now - ttl_ns(opts));
      ++room.per_shard[from];
      ++(req.follow ? room.followers : room.subscribers);
      result.epoch = room.epoch;
      result.offset = room.top;
      if (req.since) {
        // Recoverable when the epoch matches and every publication after
        // since.offset is still in the ring (none expired or overwritten).
        const auto& since = *req.since;
        bool ok = since.epoch == room.epoch && since.offset <= room.top &&
                  (since.offset == room.top ||
                   (!room.ring.empty() && room.ring.front().offset <= since.offset + 1));
        result.recovered = ok;
        if (ok) {
          for (std::size_t i = room.ring.first_after(since.offset); i < room.ring.size(); ++i)
            result.publications.push_back(room.ring.at(i).frame);
          counters_.recovered.inc();
        } else {
          counters_.not_recovered.inc();
        }
      }
      if (req.listed) {
        room.presence[req.client] = protocol::PresenceEntry{req.client, req.user, req.info_json};
      }
      if (req.announced) push_presence(room, it->first, true, req.info_json);
    }
    reply(from, std::move(done), std::move(result));
  });
}

void MemoryBroker::unsubscribe(unsigned from, std::string room_name, std::string client,
                               std::optional<std::string> leave_info) {
  unsigned h = home_of(room_name);
  asio::post(pool_[h].ctx, [this, h, from, room_name = std::move(room_name),
                            client = std::move(client), leave_info = std::move(leave_info)] {
    Home& home = *homes_[h];
    auto it = home.rooms.find(room_name);
    if (it == home.rooms.end()) return;
    Room& room = it->second;
    if (room.per_shard[from] > 0) --room.per_shard[from];
    if (room.subscribers > 0) --room.subscribers;
    room.last_active_ns = steady_now_ns();
    room.presence.erase(client);
    if (leave_info) push_presence(room, room_name, false, *leave_info);
    free_if_empty(home, it);
  });
}

void MemoryBroker::unfollow(unsigned from, std::string room_name) {
  unsigned h = home_of(room_name);
  asio::post(pool_[h].ctx, [this, h, from, room_name = std::move(room_name)] {
    Home& home = *homes_[h];
    auto it = home.rooms.find(room_name);
    if (it == home.rooms.end()) return;
    Room& room = it->second;
    if (room.per_shard[from] > 0) --room.per_shard[from];
    if (room.followers > 0) --room.followers;
    free_if_empty(home, it);
  });
}

void MemoryBroker::update_presence(unsigned /*from*/, std::string room_name, std::string client,
                                   std::string /*user*/, std::string info_json) {
  unsigned h = home_of(room_name);
  asio::post(pool_[h].ctx, [this, h, room_name = std::move(room_name), client = std::move(client),
                            info = std::move(info_json)]() mutable {
    Home& home = *homes_[h];
    auto it = home.rooms.find(room_name);
    if (it == home.rooms.end()) return;
    auto p = it->second.presence.find(client);
    if (p != it->second.presence.end()) p->second.info_json = std::move(info);
  });
}

void MemoryBroker::history(unsigned from, protocol::HistoryRequest req,
                           std::function<void(protocol::HistoryResult)> done) {
  unsigned h = home_of(req.room);
  asio::post(pool_[h].ctx, [this, h, from, req = std::move(req), done = std::move(done)]() mutable {
    Home& home = *homes_[h];
    protocol::HistoryResult result;
    // A room that does not exist is an empty stream with no epoch; reading
    // it creates nothing.
    auto it = home.rooms.find(req.room);
    static const PublicationRing kNone(0);
    const PublicationRing* ring = &kNone;
    if (it != home.rooms.end()) {
      Room& room = it->second;
      room.ring.expire(steady_now_ns() - ttl_ns(options_.room_options(req.room)));
      result.epoch = room.epoch;
      result.offset = room.top;
      ring = &room.ring;
    }
    std::size_t begin = 0;
    result.error = protocol::since_epoch_error(req, result.epoch);
    if (req.since && !result.error) begin = ring->first_after(req.since->offset);
    if (!result.error) {
      std::size_t n = ring->size() - begin;
      if (req.limit) n = std::min<std::size_t>(n, *req.limit);
      if (req.reverse) {
        for (std::size_t i = 0; i < n; ++i)
          result.publications.push_back(ring->at(ring->size() - 1 - i).frame);
      } else {
        for (std::size_t i = 0; i < n; ++i)
          result.publications.push_back(ring->at(begin + i).frame);
      }
    }
    reply(from, std::move(done), std::move(result));
  });
}

void MemoryBroker::history_remove(unsigned from, std::string room_name,
                                  std::function<void(protocol::HistoryRemoveResult)> done) {
  unsigned h = home_of(room_name);
  asio::post(pool_[h].ctx,
             [this, h, from, room_name = std::move(room_name), done = std::move(done)]() mutable {
               Home& home = *homes_[h];
               // The ring only: epoch and top stay (requests.hpp), so a
               // subscribe from an older offset finds the ring's front
               // past it and is answered recovered: false.
               if (auto it = home.rooms.find(room_name); it != home.rooms.end())
                 it->second.ring.clear();
               reply(from, std::move(done), protocol::HistoryRemoveResult{});
             });
}

void MemoryBroker::presence(unsigned from, std::string room_name,
                            std::function<void(protocol::PresenceResult)> done) {
  unsigned h = home_of(room_name);
  asio::post(pool_[h].ctx,
             [this, h, from, room_name = std::move(room_name), done = std::move(done)]() mutable {
               Home& home = *homes_[h];
               protocol::PresenceResult result;
               auto it = home.rooms.find(room_name);
               if (it != home.rooms.end()) {
                 for (const auto& [client, entry] : it->second.presence)
                   result.clients.push_back(entry);
               }
               std::sort(result.clients.begin(), result.clients.end(),
                         [](const protocol::PresenceEntry& a, const protocol::PresenceEntry& b) {
                           return a.client < b.client;
                         });
               reply(from, std::move(done), std::move(result));
             });
}

}  // namespace herald::gateway::broker
