#include "gateway/broker/redis_broker.hpp"

#include <boost/asio/post.hpp>

#include <algorithm>
#include <future>

#include "core/log.hpp"
#include "core/random.hpp"
#include "core/time/steady_clock.hpp"
#include "gateway/broker/idempotency_window.hpp"
#include "gateway/protocol/encode.hpp"

namespace herald::gateway::broker {
namespace asio = boost::asio;
using redis_schema::ReadReply;

namespace {

std::string ms(std::chrono::milliseconds d) {
  return std::to_string(d.count());
}

// Redis cannot be reached or answered wrongly: 114 (`unavailable`), which
// says "try again", not 108 (`not_available`), which says the feature is off
// and retrying is pointless; the server API answers it with 503.
protocol::BrokerError unavailable(const std::string& why) {
  return protocol::BrokerError{protocol::ErrorCode::unavailable, "cluster broker: " + why};
}

// The error of a one-command pipeline: transport, or a Redis error reply.
std::optional<std::string> failure(const redis::Result& r) {
  if (!r.ok()) return r.error;
  if (r.replies.empty()) return std::string("no reply");
  if (r.replies[0].is_error()) return "redis: " + r.replies[0].str;
  return std::nullopt;
}

// The publish script's reply: {offset, epoch}.
protocol::PublishResult read_stream_publish(const redis::Reply& reply) {
  protocol::PublishResult result;
  const auto& e = reply.elements;
  if (e.size() != 2 || e[0].type != redis::Reply::Type::integer ||
      e[1].type != redis::Reply::Type::string || e[0].integer <= 0) {
    result.error = unavailable("unexpected publish reply " + reply.describe());
    return result;
  }
  // Safety: checked positive above.
  result.offset = static_cast<std::uint64_t>(e[0].integer);
  result.epoch = e[1].str;
  return result;
}

// How each Redis server is reached: the configured options, with the
// broker's scripts loaded on every connect.
redis::Options connection_options(redis::Options o) {
  o.scripts = redis_schema::all_scripts();
  return o;
}

}  // namespace

// A subscribe waiting for the room's channel or for its read.
struct RedisBroker::PendingSubscribe {
  unsigned from = 0;
  protocol::SubscribeRequest request;
  std::function<void(protocol::SubscribeResult)> done;
  std::uint64_t seq = 0;  // message_seq_ when its read was sent
};

// The node's view of one room it has local subscribers for.
struct RedisBroker::Room {
  Room(std::uint64_t i, unsigned shards, std::size_t recent_size)
      : id(i), per_shard(shards, 0), recent(recent_size) {}
  std::uint64_t id;  // incarnation: callbacks of a forgotten room compare it
  std::vector<std::uint32_t>
      per_shard;                // local subscriptions and follows by shard (pending ones too)
  std::uint32_t local = 0;      // subscriptions
  std::uint32_t followers = 0;  // room lists' follows (SubscribeRequest::follow)
  enum class Channel : std::uint8_t { none, joining, joined } channel = Channel::none;
  // The Redis server whose subscriber connection holds the channel (joining or
  // joined). It stays there when the room's slot moves to another Redis
  // Cluster master: PUBLISH in a Redis Cluster reaches the subscribers of
  // every node, so the channel needs no move, and leaving it must go to the
  // connection that joined it.
  redis::Router::Server channel_server = 0;
  std::vector<PendingSubscribe> waiting;  // for the channel's confirmation

  // The node's stream: the epoch it follows and the last offset it handed
  // to the shards. Unsynced until the first read of the room answers.
  bool synced = false;
  std::string epoch;
  std::uint64_t delivered = 0;
  // Frames delivered lately, for subscribe results whose read ran behind
  // the channel (their result must include what the shards already got).
  PublicationRing recent;
  // Publications received ahead of `delivered` + 1, or before the room was
  // synced, or of another epoch; keyed by offset.
  struct Held {
    std::string epoch;
    fanout::MessagePtr frame;
    std::uint64_t seq;  // message_seq_ at arrival
  };
  std::multimap<std::uint64_t, Held> ahead;
  bool fetching = false;  // a catch-up read is in flight

  // This node's presence entries in the room (client -> body), refreshed
  // periodically so they outlive presence_ttl only while the node lives.
  std::map<std::string, std::string> presence;
};

RedisBroker::RedisBroker(const Options& options, ShardPool& pool, Delivery deliver, Reset reset,
                         metrics::Registry& registry)
    : options_(options),
      cluster_(options.cluster),
      pool_(pool),
      deliver_(std::move(deliver)),
      reset_(std::move(reset)),
      work_(asio::make_work_guard(io_)),
      presence_timer_(io_),
      counters_(registry),
      budget_(options.max_rooms, registry),
      gap_fetches_(registry.counter("herald_cluster_gap_fetches_total",
                                    "History reads to fill a gap in a room's live stream")),
      resets_(registry.counter("herald_cluster_stream_resets_total",
                               "Rooms whose local subscribers were reset (3005): a hole could "
                               "not be filled from the history")),
      bad_messages_(
          registry.counter("herald_cluster_bad_messages_total",
                           "Messages on room and survey channels not in Herald's format")) {
  if (cluster_.wait_replicas > 0 && cluster_.wait_timeout >= cluster_.redis.command_timeout) {
    throw std::runtime_error("cluster.redis.wait_timeout (" + ms(cluster_.wait_timeout) +
                             " ms) must be shorter than cluster.redis.command_timeout (" +
                             ms(cluster_.redis.command_timeout) +
                             " ms): a publish waiting for its replicas would "
                             "time out its connection");
  }
  router_ = std::make_unique<redis::Router>(
      io_, redis::make_topology(cluster_.redis_topology, "cluster.redis"),
      connection_options(cluster_.redis));
  router_->on_ready([this](redis::Router::Server server) { on_ready(server); });
  router_->on_down([this](redis::Router::Server server) { on_down(server); });
  // The registry's hash lives on the server its key hashes to, like a
  // room: the same on every node whatever the order of its address list.
  nodes_key_ = cluster_.key_prefix + "nodes";
  registry_ = std::make_unique<NodeRegistry>(
      io_,
      NodeRegistry::Link{[this](std::vector<redis::Command> pipeline, redis::Client::Done done) {
                           router_->execute(nodes_key_, std::move(pipeline), std::move(done));
                         },
                         [this] { return router_->ready(router_->server_of(nodes_key_)); }},
      nodes_key_, cluster_.heartbeat_interval, cluster_.node_ttl);
  // Questions and answers share one channel, heard whichever server
  // carries a PUBLISH (survey.hpp).
  survey_channel_ = cluster_.key_prefix + "survey";
  survey_ = std::make_unique<Survey>(
      io_,
      [this](std::string message) {
        router_->execute(survey_channel_, {{"PUBLISH", survey_channel_, std::move(message)}},
                         [](const redis::Result&) {});
      },
      cluster_.redis.command_timeout);
  router_->subscribe_everywhere(survey_channel_, [this](std::string_view payload) {
    if (!survey_->on_message(registry_->self().id, payload)) bad_messages_.inc();
  });
  registry.callback("herald_cluster_redis_round_trips_total",
                    "Round trips to the cluster's Redis servers (a pipeline is one)",
                    [this] { return static_cast<double>(router_->round_trips()); });
  registry.callback("herald_cluster_redis_up", "1 when every Redis server is connected",
                    [this] { return router_->all_ready() ? 1.0 : 0.0; });
}

redis::Router::Server RedisBroker::server_of(const std::string& room) const {
  return router_->server_of(redis_schema::room_keys(cluster_.key_prefix, room).meta);
}

void RedisBroker::execute(const std::string& room, std::vector<redis::Command> pipeline,
                          redis::Client::Done done) {
  router_->execute(redis_schema::room_keys(cluster_.key_prefix, room).meta, std::move(pipeline),
                   std::move(done));
}

RedisBroker::~RedisBroker() {
  stop();
}

void RedisBroker::start() {
  if (thread_.joinable()) return;
  asio::post(io_, [this] {
    router_->start();
    refresh_presence();
  });
  thread_ = std::thread([this] { io_.run(); });
}

bool RedisBroker::wait_ready(std::chrono::milliseconds timeout) const {
  return router_->wait_ready(timeout);
}

std::optional<std::string> RedisBroker::refusal() const {
  return router_->refusal();
}

void RedisBroker::register_node(ClusterNode self, NodeRegistry::Report report,
                                NodeRegistry::Listener listener) {
  asio::post(io_, [this, self = std::move(self), report = std::move(report),
                   listener = std::move(listener)]() mutable {
    registry_->start(std::move(self), std::move(report), std::move(listener));
  });
}

void RedisBroker::survey(unsigned from, std::string question,
                         std::function<void(SurveyResult)> done) {
  asio::post(io_, [this, from, question = std::move(question), done = std::move(done)]() mutable {
    std::set<std::string> others;
    for (const ClusterNode& n : registry_->live()) others.insert(n.id);
    // Not yet listed itself (no heartbeat answered since start): the
    // others are not known either, and answering alone would undercount.
    if (registry_->self().id.empty() || !others.contains(registry_->self().id)) {
      return reply(from, std::move(done),
                   SurveyResult{"this node is not in the cluster's node registry yet (no "
                                "heartbeat answered): try again",
                                {}});
    }
    survey_->ask(registry_->self().id, std::move(others), question,
                 [this, from, done = std::move(done)](SurveyResult r) mutable {
                   reply(from, std::move(done), std::move(r));
                 });
  });
}

void RedisBroker::set_survey_responder(Survey::Responder responder) {
  survey_->set_responder(std::move(responder));
}

void RedisBroker::nodes(unsigned from, std::function<void(std::vector<ClusterNode>)> done) {
  asio::post(io_, [this, from, done = std::move(done)]() mutable {
    reply(from, std::move(done), registry_->live());
  });
}

void RedisBroker::stop() {
  if (!thread_.joinable()) return;
  // Leave the registry first, so the discovery zones drop this node now
  // rather than after node_ttl; bounded by the command timeout.
  auto left = std::make_shared<std::promise<void>>();
  asio::post(io_, [this, left] { registry_->stop([left] { left->set_value(); }); });
  (void)left->get_future().wait_for(cluster_.redis.command_timeout);
  std::promise<void> done;
  asio::post(io_, [this, &done] {
    stopped_ = true;
    presence_timer_.cancel();
    router_->stop();
    done.set_value();
  });
  done.get_future().wait();
  work_.reset();
  io_.stop();
  thread_.join();
}

template <class Result>
void RedisBroker::reply(unsigned from, std::function<void(Result)> done, Result result) {
  pool_.reply(from, std::move(done), std::move(result));
}

redis::Command RedisBroker::read_command(const std::string& room, Create create, std::string after,
                                         std::string field, std::string body, std::string join) {
  const RoomOptions& o = options_.room_options(room);
  const auto keys = redis_schema::room_keys(cluster_.key_prefix, room);
  Lineage lineage = lineage_of(room);
  return redis::Command{"EVALSHA",
                        redis_schema::kReadScript.sha(),
                        "3",
                        keys.meta,
                        keys.history,
                        keys.presence,
                        create == Create::yes ? "1" : "0",
                        new_epoch(),
                        std::move(after),
                        ms(o.history_ttl),
                        ms(std::max(cluster_.stream_ttl, o.history_ttl)),
                        std::move(field),
                        std::move(body),
                        ms(cluster_.presence_ttl),
                        keys.channel,
                        std::move(join),
                        lineage.mine,
                        std::move(lineage.live)};
}

RedisBroker::Lineage RedisBroker::lineage_of(const std::string& room) const {
  if (cluster_.new_history != "new_epoch") return {};
  return Lineage{router_->client(server_of(room)).replid(), live_replids_};
}

void RedisBroker::note_live_replids() {
  // Redis Cluster: a room's keys may come from another live master by a
  // slot migration, which is no loss (redis_schema.hpp). The list holds
  // the room's own server too, which the script matches first anyway.
  live_replids_.clear();
  if (!router_->slotted()) return;
  for (redis::Router::Server k = 0; k < router_->size(); ++k) {
    const redis::Client& c = router_->client(k);
    if (!c.ready() || c.replid().empty()) continue;
    if (!live_replids_.empty()) live_replids_ += ' ';
    live_replids_ += c.replid();
  }
}

std::string RedisBroker::new_epoch() {
  return random::hex_id(8);
}

RedisBroker::Room* RedisBroker::open_room(const std::string& name) {
  auto it = rooms_.find(name);
  if (it != rooms_.end()) return &it->second;
  if (!budget_.try_acquire()) return nullptr;
  const RoomOptions& o = options_.room_options(name);
  // The recent ring needs to cover one read's round trip of traffic; the
  // history size is the natural bound, with a floor for rooms keeping none.
  // It allocates as publications arrive, not up front.
  const std::size_t recent = std::max<std::size_t>(o.history_size, 128);
  return &rooms_.try_emplace(name, ++next_room_id_, pool_.size(), recent).first->second;
}

// ---- publish -------------------------------------------------------------

void RedisBroker::publish(unsigned from, protocol::PublishRequest req,
                          std::function<void(protocol::PublishResult)> done) {
  asio::post(io_, [this, from, req = std::move(req), done = std::move(done)]() mutable {
    if (req.skip_history) return publish_live(from, req, std::move(done));
    const RoomOptions& o = options_.room_options(req.room);
    const auto keys = redis_schema::room_keys(cluster_.key_prefix, req.room);
    auto parts = redis_schema::frame_parts(req.room, req.data_json, req.info_json,
                                           req.moderation_json, req.tags_json);
    Lineage lineage = lineage_of(req.room);
    const bool keyed = !req.idempotency_key.empty();
    redis::Command cmd{"EVALSHA", redis_schema::kPublishScript.sha(), keyed ? "3" : "2", keys.meta,
                       keys.history};
    if (keyed) {
      cmd.push_back(
          redis_schema::idempotency_key(cluster_.key_prefix, req.room, req.idempotency_key));
    }
    cmd.insert(cmd.end(),
               {keys.channel, new_epoch(), std::to_string(o.history_size), ms(o.history_ttl),
                ms(std::max(cluster_.stream_ttl, o.history_ttl)), std::move(parts.head),
                std::move(parts.tail), std::move(lineage.mine), std::move(lineage.live)});
    if (keyed) {
      cmd.push_back(std::to_string(
          std::chrono::duration_cast<std::chrono::milliseconds>(IdempotencyWindow::kWindow)
              .count()));
    }
    std::vector<redis::Command> pipeline{std::move(cmd)};
    // Durability: WAIT in the same round trip; Redis answers it once that
    // many replicas have the publish, or at the timeout with how many do.
    if (cluster_.wait_replicas > 0) {
      pipeline.push_back(
          {"WAIT", std::to_string(cluster_.wait_replicas), ms(cluster_.wait_timeout)});
    }
    send_publish(from, req.room, std::move(pipeline), std::move(done), read_stream_publish);
  });
}

void RedisBroker::publish_live(unsigned from, const protocol::PublishRequest& req,
                               std::function<void(protocol::PublishResult)> done) {
  // A plain PUBLISH of an event message: no key is read or written (the
  // room's offset, history and epoch stay as they are), and every node
  // delivers it as it arrives, as it does join and leave pushes.
  auto frame = protocol::encode_live_pub_push(req.room, req.data_json, req.info_json,
                                              req.moderation_json, req.tags_json);
  redis::Command cmd{"PUBLISH", redis_schema::room_keys(cluster_.key_prefix, req.room).channel,
                     redis_schema::event_message(frame)};
  send_publish(from, req.room, {std::move(cmd)}, std::move(done), [](const redis::Reply&) {
    protocol::PublishResult result;
    result.in_stream = false;
    return result;
  });
}

void RedisBroker::send_publish(unsigned from, const std::string& room,
                               std::vector<redis::Command> pipeline,
                               std::function<void(protocol::PublishResult)> done,
                               protocol::PublishResult (*read)(const redis::Reply&)) {
  // mutable: `done` holds the publisher's session and is moved into the
  // reply posted to its shard, so this closure, destroyed on the broker
  // thread, releases nothing (a session is released on its shard).
  execute(room, std::move(pipeline),
          [this, from, read, done = std::move(done)](const redis::Result& r) mutable {
            protocol::PublishResult result;
            if (auto why = failure(r)) {
              result.error = unavailable(*why);
            } else {
              result = read(r.replies[0]);
              if (!result.error) counters_.publications.inc();
              if (!result.error && r.replies.size() == 2) result.error = not_durable(r, result);
            }
            reply(from, std::move(done), std::move(result));
          });
}

std::optional<protocol::BrokerError> RedisBroker::not_durable(
    const redis::Result& r, const protocol::PublishResult& published) const {
  const redis::Reply& wait = r.replies[1];
  if (wait.type == redis::Reply::Type::integer && wait.integer >= cluster_.wait_replicas)
    return std::nullopt;
  const std::string confirmed = wait.type == redis::Reply::Type::integer
                                    ? std::to_string(wait.integer)
                                    : "no (" + wait.describe() + ")";
  // In the stream already, and maybe delivered; not acknowledged, since a
  // failover now could lose it (then its subscribers are told: lineage).
  return unavailable("published at offset " + std::to_string(published.offset) + " of epoch " +
                     published.epoch + ", but " + confirmed + " of the " +
                     std::to_string(cluster_.wait_replicas) +
                     " replicas cluster.redis.wait_replicas asks for confirmed it within " +
                     ms(cluster_.wait_timeout) + " ms; it may not survive a failover");
}

// ---- subscribe -----------------------------------------------------------

void RedisBroker::subscribe(unsigned from, protocol::SubscribeRequest req,
                            std::function<void(protocol::SubscribeResult)> done) {
  asio::post(io_, [this, from, req = std::move(req), done = std::move(done)]() mutable {
    const RoomOptions& o = options_.room_options(req.room);
    const std::string name = req.room;
    Room* opened = open_room(name);
    if (!opened) {
      // Nothing was sent to Redis: a refused name leaves no key there.
      protocol::SubscribeResult result;
      result.error = budget_.refusal(name);
      return reply(from, std::move(done), std::move(result));
    }
    Room& room = *opened;
    if (!req.follow && o.max_subscribers != 0 && room.local >= o.max_subscribers) {
      protocol::SubscribeResult result;
      result.error = protocol::BrokerError{
          protocol::ErrorCode::limit_exceeded,
          "room is full on this node (max_subscribers " + std::to_string(o.max_subscribers) + ")"};
      reply(from, std::move(done), std::move(result));
      release_if_unused(name);
      return;
    }
    ++room.per_shard[from];
    ++(req.follow ? room.followers : room.local);
    PendingSubscribe op{from, std::move(req), std::move(done)};
    switch (room.channel) {
      case Room::Channel::joined:
        run_subscribe(name, room, std::move(op));
        break;
      case Room::Channel::joining:
        room.waiting.push_back(std::move(op));
        break;
      case Room::Channel::none:
        room.waiting.push_back(std::move(op));
        join_channel(name, room);
        break;
    }
  });
}

void RedisBroker::join_channel(const std::string& name, Room& room) {
  room.channel = Room::Channel::joining;
  const auto keys = redis_schema::room_keys(cluster_.key_prefix, name);
  room.channel_server = server_of(name);
  router_->client(room.channel_server)
      .join(
          keys.channel, [this, name](std::string_view payload) { on_message(name, payload); },
          [this, name, id = room.id](const redis::Result& r) { on_joined(name, id, r); });
}

void RedisBroker::on_joined(const std::string& name, std::uint64_t id, const redis::Result& r) {
  auto it = rooms_.find(name);
  if (it == rooms_.end() || it->second.id != id || it->second.channel != Room::Channel::joining)
    return;
  Room& room = it->second;
  std::vector<PendingSubscribe> waiting = std::move(room.waiting);
  room.waiting.clear();
  if (!r.ok()) {
    room.channel = Room::Channel::none;
    router_->client(room.channel_server)
        .leave(redis_schema::room_keys(cluster_.key_prefix, name).channel);
    for (auto& op : waiting) fail_subscribe(room, std::move(op), r.error);
    release_if_unused(name);
    return;
  }
  room.channel = Room::Channel::joined;
  // Reads only after the channel is confirmed: every publication after a
  // read's top then reaches this node on the channel.
  for (auto& op : waiting) run_subscribe(name, room, std::move(op));
}

void RedisBroker::fail_subscribe(Room& room, PendingSubscribe op, const std::string& why) {
  if (room.per_shard[op.from] > 0) --room.per_shard[op.from];
  std::uint32_t& count = op.request.follow ? room.followers : room.local;
  if (count > 0) --count;
  room.presence.erase(op.request.client);
  protocol::SubscribeResult result;
  result.error = unavailable(why);
  reply(op.from, std::move(op.done), std::move(result));
}

void RedisBroker::run_subscribe(const std::string& name, Room& room, PendingSubscribe op) {
  const RoomOptions& o = options_.room_options(name);
  const auto& since = op.request.since;
  // The read returns what the client missed and, when the node's stream is
  // behind, what the node missed: everything after the lower of the two.
  std::int64_t after = -1;
  if (room.synced) after = static_cast<std::int64_t>(room.delivered);
  if (since && (!room.synced || since->epoch == room.epoch)) {
    const auto s = static_cast<std::int64_t>(std::min<std::uint64_t>(since->offset, INT64_MAX));
    after = after < 0 ? s : std::min(after, s);
  }
  std::string field, body, join;
  if (op.request.listed) {
    field = op.request.client;
    body = redis_schema::presence_body(op.request.user, op.request.info_json);
    room.presence[field] = body;
  }
  if (op.request.announced) {
    if (join_leave_.take(name, o.join_leave_rate, steady_now_ns())) {
      join = protocol::encode_presence_push(true, name, op.request.info_json);
    } else {
      counters_.join_leave_dropped.inc();
    }
  }
  redis::Command cmd = read_command(name, Create::yes, std::to_string(after), std::move(field),
                                    std::move(body), std::move(join));
  op.seq = message_seq_;
  auto op_ptr = std::make_shared<PendingSubscribe>(std::move(op));
  execute(name, {std::move(cmd)}, [this, name, id = room.id, op_ptr](const redis::Result& r) {
    on_subscribed(name, id, std::move(*op_ptr), r);
  });
}

void RedisBroker::on_subscribed(const std::string& name, std::uint64_t id, PendingSubscribe op,
                                const redis::Result& r) {
  auto it = rooms_.find(name);
  // The op counts in room.local (or followers), so its room cannot have
  // been forgotten.
  if (it == rooms_.end() || it->second.id != id) return;
  Room& room = it->second;
  std::optional<ReadReply> read;
  if (auto why = failure(r)) {
    fail_subscribe(room, std::move(op), *why);
    return release_if_unused(name);
  }
  read = redis_schema::parse_read_reply(r.replies[0]);
  if (!read) {
    fail_subscribe(room, std::move(op), "unexpected read reply " + r.replies[0].describe());
    return release_if_unused(name);
  }
  sync_to(name, room, *read, op.seq);

  protocol::SubscribeResult result;
  result.epoch = room.epoch;
  result.offset = room.delivered;
  if (const auto& since = op.request.since) {
    // Recovered when the epoch is the room's and every publication after
    // since is in hand: from the read up to its top, then from the node's
    // recent ring up to what the shards already got.
    bool ok = room.synced && since->epoch == read->epoch && read->epoch == room.epoch &&
              since->offset <= read->top &&
              (since->offset == read->top || read->first <= since->offset + 1);
    if (ok) {
      for (std::size_t i = 0; i < read->frames.size(); ++i) {
        if (read->first + i > since->offset)
          result.publications.push_back(fanout::make_message(std::move(read->frames[i])));
      }
      if (room.delivered > read->top) {
        const std::size_t from = room.recent.first_after(read->top);
        ok = !room.recent.empty() && room.recent.front().offset <= read->top + 1;
        for (std::size_t i = from; ok && i < room.recent.size(); ++i)
          result.publications.push_back(room.recent.at(i).frame);
      }
    }
    if (!ok) result.publications.clear();
    result.recovered = ok;
    (ok ? counters_.recovered : counters_.not_recovered).inc();
  }
  reply(op.from, std::move(op.done), std::move(result));
}

// ---- the node's stream ---------------------------------------------------

void RedisBroker::on_message(const std::string& name, std::string_view payload) {
  auto it = rooms_.find(name);
  if (it == rooms_.end()) return;
  Room& room = it->second;
  auto m = redis_schema::parse_channel_message(payload);
  if (!m) {
    bad_messages_.inc();
    return;
  }
  if (!m->publication) {
    // join/leave and skip_history publications: not part of the stream,
    // delivered as they come.
    fan_out(name, room, fanout::make_message(std::string(m->frame)));
    return;
  }
  ++message_seq_;
  if (room.synced && m->epoch == room.epoch) {
    if (m->offset <= room.delivered) return;  // already delivered (from a read)
    if (m->offset == room.delivered + 1 && room.ahead.empty() && !room.fetching) {
      deliver(name, room, m->offset, fanout::make_message(std::string(m->frame), steady_now_ns()));
      return;
    }
  }
  room.ahead.emplace(
      m->offset,
      Room::Held{std::string(m->epoch),
                 fanout::make_message(std::string(m->frame), steady_now_ns()), message_seq_});
  if (room.ahead.size() > cluster_.max_pending) {
    reset(name, room, "too many publications held behind a gap (cluster.max_pending)");
    room.ahead.clear();
    room.synced = false;  // the next read (catch-up below) sets the stream again
  }
  if (!room.fetching) drain(name, room);
}

void RedisBroker::drain(const std::string& name, Room& room) {
  if (!room.synced) {
    // Held until the first read answers; start one if none is coming.
    if (room.channel == Room::Channel::joined && room.waiting.empty()) catch_up(name, room);
    return;
  }
  while (!room.ahead.empty()) {
    auto it = room.ahead.begin();
    if (it->second.epoch == room.epoch && it->first <= room.delivered) {
      room.ahead.erase(it);
      continue;
    }
    if (it->second.epoch == room.epoch && it->first == room.delivered + 1) {
      fanout::MessagePtr frame = std::move(it->second.frame);
      const std::uint64_t offset = it->first;
      room.ahead.erase(it);
      deliver(name, room, offset, frame);
      continue;
    }
    // A gap, or another epoch: the history says what happened.
    catch_up(name, room);
    return;
  }
}

void RedisBroker::catch_up(const std::string& name, Room& room) {
  if (room.fetching || stopped_) return;
  room.fetching = true;
  gap_fetches_.inc();
  redis::Command cmd = read_command(
      name, Create::yes, room.synced ? std::to_string(room.delivered) : std::string("-1"));
  execute(name, {std::move(cmd)}, [this, name, id = room.id, seq = message_seq_](redis::Result r) {
    auto it = rooms_.find(name);
    if (it == rooms_.end() || it->second.id != id) return;
    Room& current = it->second;
    current.fetching = false;
    // Failed: the next message or the next reconnect tries again.
    if (failure(r)) return;
    auto read = redis_schema::parse_read_reply(r.replies[0]);
    if (!read) return;
    sync_to(name, current, *read, seq);
  });
}

void RedisBroker::sync_to(const std::string& name, Room& room, const ReadReply& read,
                          std::uint64_t since_seq) {
  if (!room.synced) {
    // Nobody here has anything of this room yet: the stream starts at top.
    room.synced = true;
    room.epoch = read.epoch;
    room.delivered = read.top;
    room.recent.clear();
  } else if (read.epoch != room.epoch) {
    // Redis lost the room (restarted without its data, or the stream
    // expired): what local subscribers had cannot be continued.
    reset(name, room, "the room's epoch changed");
    room.epoch = read.epoch;
    room.delivered = read.top;
  } else if (read.top > room.delivered) {
    if (read.first > room.delivered + 1) {
      reset(name, room, "the history no longer holds the gap");
      room.delivered = read.top;
    } else {
      for (std::size_t i = 0; i < read.frames.size(); ++i) {
        const std::uint64_t offset = read.first + i;
        if (offset > room.delivered)
          deliver(name, room, offset, fanout::make_message(read.frames[i], steady_now_ns()));
      }
    }
  }
  // Held messages that arrived before this read was sent are judged by it
  // (later ones are news): of another epoch, they are stale; of this epoch
  // with an offset past the read's top, Redis had not assigned them, so
  // they are not Herald's (counted, dropped; otherwise each drain would
  // read the history again, forever).
  std::erase_if(room.ahead, [&](const auto& kv) {
    if (kv.second.seq > since_seq) return false;
    if (kv.second.epoch != room.epoch) return true;
    if (read.epoch == room.epoch && kv.first > read.top) {
      bad_messages_.inc();
      return true;
    }
    return false;
  });
  drain(name, room);
}

void RedisBroker::deliver(const std::string& name, Room& room, std::uint64_t offset,
                          const fanout::MessagePtr& frame) {
  room.delivered = offset;
  room.recent.push(StoredPublication{offset, steady_now_ns(), frame});
  fan_out(name, room, frame);
}

void RedisBroker::fan_out(const std::string& name, const Room& room,
                          const fanout::MessagePtr& frame) {
  // One post per shard with subscribers; its hub hands the frame to each.
  for (unsigned s = 0; s < room.per_shard.size(); ++s) {
    if (room.per_shard[s] == 0) continue;
    asio::post(pool_[s].ctx, [this, s, name, frame] { deliver_(s, name, frame); });
  }
}

void RedisBroker::reset(const std::string& name, Room& room, const char* why) {
  log::warn("cluster: resetting a room's local subscribers",
            {{"room", name}, {"reason", why}, {"delivered", room.delivered}});
  resets_.inc();
  room.recent.clear();
  for (unsigned s = 0; s < room.per_shard.size(); ++s) {
    if (room.per_shard[s] == 0) continue;
    asio::post(pool_[s].ctx, [this, s, name] { reset_(s, name); });
  }
}

void RedisBroker::on_ready(redis::Router::Server server) {
  note_live_replids();
  if (server == router_->server_of(nodes_key_)) registry_->beat();
  // After a reconnect (channels are resubscribed by now): publications may
  // have been missed while disconnected; read each stream's tail.
  for (auto& [name, room] : rooms_) {
    if (room.synced && room.channel == Room::Channel::joined && room.channel_server == server)
      catch_up(name, room);
  }
}

void RedisBroker::on_down(redis::Router::Server server) {
  note_live_replids();
  // Subscribes waiting for a channel fail now rather than when Redis is back.
  std::vector<std::string> names;
  for (auto& [name, room] : rooms_) {
    if (room.channel != Room::Channel::joining || room.channel_server != server) continue;
    room.channel = Room::Channel::none;
    router_->client(server).leave(redis_schema::room_keys(cluster_.key_prefix, name).channel);
    std::vector<PendingSubscribe> waiting = std::move(room.waiting);
    room.waiting.clear();
    for (auto& op : waiting) fail_subscribe(room, std::move(op), "redis connection lost");
    names.push_back(name);
  }
  // A Redis Cluster master that went down may never come back as one (its
  // replica is promoted): the channels joined on it are gone for good, and
  // their live traffic with them. The rooms' local subscribers are reset
  // (3005); they resubscribe, which joins the channel on the slot's master
  // of the moment and recovers what they missed from the history.
  if (router_->slotted()) {
    for (auto& [name, room] : rooms_) {
      if (room.channel != Room::Channel::joined || room.channel_server != server) continue;
      reset(name, room, "its Redis Cluster master went down");
      room.channel = Room::Channel::none;
      room.synced = false;
      router_->client(server).leave(redis_schema::room_keys(cluster_.key_prefix, name).channel);
    }
  }
  for (const auto& n : names) release_if_unused(n);
}

void RedisBroker::release_if_unused(const std::string& name) {
  auto it = rooms_.find(name);
  if (it == rooms_.end() || it->second.local != 0 || it->second.followers != 0) return;
  if (it->second.channel != Room::Channel::none)
    router_->client(it->second.channel_server)
        .leave(redis_schema::room_keys(cluster_.key_prefix, name).channel);
  rooms_.erase(it);
  budget_.release();
}

// ---- unsubscribe, history, presence ---------------------------------------

void RedisBroker::unfollow(unsigned from, std::string name) {
  asio::post(io_, [this, from, name = std::move(name)] {
    auto it = rooms_.find(name);
    if (it == rooms_.end()) return;
    Room& room = it->second;
    if (room.per_shard[from] > 0) --room.per_shard[from];
    if (room.followers > 0) --room.followers;
    release_if_unused(name);
  });
}

void RedisBroker::unsubscribe(unsigned from, std::string name, std::string client,
                              std::optional<std::string> leave_info) {
  asio::post(io_, [this, from, name = std::move(name), client = std::move(client),
                   leave_info = std::move(leave_info)] {
    auto it = rooms_.find(name);
    if (it == rooms_.end()) return;
    Room& room = it->second;
    if (room.per_shard[from] > 0) --room.per_shard[from];
    if (room.local > 0) --room.local;
    const bool listed = room.presence.erase(client) != 0;
    std::string leave;
    if (leave_info) {
      const std::uint32_t rate = options_.room_options(name).join_leave_rate;
      if (join_leave_.take(name, rate, steady_now_ns())) {
        leave = protocol::encode_presence_push(false, name, *leave_info);
      } else {
        counters_.join_leave_dropped.inc();
      }
    }
    // One script drops the entry and publishes the leave (either may be
    // all it has to do).
    if (listed || !leave.empty()) {
      const auto keys = redis_schema::room_keys(cluster_.key_prefix, name);
      execute(name,
              {{"EVALSHA", redis_schema::kLeaveScript.sha(), "1", keys.presence, client,
                keys.channel, std::move(leave)}},
              [](const redis::Result&) {});
    }
    release_if_unused(name);
  });
}

void RedisBroker::history(unsigned from, protocol::HistoryRequest req,
                          std::function<void(protocol::HistoryResult)> done) {
  asio::post(io_, [this, from, req = std::move(req), done = std::move(done)]() mutable {
    const std::uint64_t after = req.since && !req.reverse ? req.since->offset : 0;
    // Create::no: a history of a room Redis does not have answers an empty
    // stream (epoch "") and writes nothing.
    redis::Command cmd = read_command(req.room, Create::no,
                                      std::to_string(std::min<std::uint64_t>(after, INT64_MAX)));
    const std::string room = req.room;  // req moves into the handler
    execute(
        room, {std::move(cmd)},
        [this, from, req = std::move(req), done = std::move(done)](redis::Result r) mutable {
          protocol::HistoryResult result;
          std::optional<ReadReply> read;
          if (auto why = failure(r)) {
            result.error = unavailable(*why);
          } else if (!(read = redis_schema::parse_read_reply(r.replies[0]))) {
            result.error = unavailable("unexpected read reply " + r.replies[0].describe());
          } else {
            result.epoch = read->epoch;
            result.offset = read->top;
            result.error = protocol::since_epoch_error(req, read->epoch);
            if (!result.error) {
              std::size_t n = read->frames.size();
              if (req.limit) n = std::min<std::size_t>(n, *req.limit);
              for (std::size_t i = 0; i < n; ++i) {
                const std::size_t at = req.reverse ? read->frames.size() - 1 - i : i;
                result.publications.push_back(fanout::make_message(std::move(read->frames[at])));
              }
            }
          }
          reply(from, std::move(done), std::move(result));
        });
  });
}

void RedisBroker::history_remove(unsigned from, std::string name,
                                 std::function<void(protocol::HistoryRemoveResult)> done) {
  asio::post(io_, [this, from, name = std::move(name), done = std::move(done)]() mutable {
    // The list only: the meta hash keeps epoch and top, and the scripts
    // read an empty list as "nothing kept after top" (first = top + 1), so
    // recovery from an older offset fails and the next publish continues
    // at top + 1.
    const auto keys = redis_schema::room_keys(cluster_.key_prefix, name);
    execute(name, {{"DEL", keys.history}},
            [this, from, done = std::move(done)](const redis::Result& r) mutable {
              protocol::HistoryRemoveResult result;
              if (auto why = failure(r)) result.error = unavailable(*why);
              reply(from, std::move(done), std::move(result));
            });
  });
}

void RedisBroker::update_presence(unsigned /*from*/, std::string name, std::string client,
                                  std::string user, std::string info_json) {
  asio::post(io_, [this, name = std::move(name), client = std::move(client), user = std::move(user),
                   info = std::move(info_json)] {
    auto it = rooms_.find(name);
    if (it == rooms_.end()) return;
    auto entry = it->second.presence.find(client);
    if (entry == it->second.presence.end()) return;
    entry->second = redis_schema::presence_body(user, info);
    // Written now, by the refresh script for this one entry, rather than
    // at the next refresh.
    redis::Command cmd = presence_refresh(name);
    cmd.push_back(client);
    cmd.push_back(entry->second);
    execute(name, {std::move(cmd)}, [](const redis::Result&) {});
  });
}

void RedisBroker::presence(unsigned from, std::string name,
                           std::function<void(protocol::PresenceResult)> done) {
  asio::post(io_, [this, from, name = std::move(name), done = std::move(done)]() mutable {
    const auto keys = redis_schema::room_keys(cluster_.key_prefix, name);
    execute(name, {{"EVALSHA", redis_schema::kPresenceScript.sha(), "1", keys.presence}},
            [this, from, done = std::move(done)](redis::Result r) mutable {
              protocol::PresenceResult result;
              if (auto why = failure(r)) {
                result.error = unavailable(*why);
              } else {
                const auto& e = r.replies[0].elements;
                for (std::size_t i = 0; i + 1 < e.size(); i += 2) {
                  auto v = redis_schema::parse_presence_value(e[i + 1].str);
                  if (!v) continue;  // not written by Herald: left out
                  result.clients.push_back(protocol::PresenceEntry{e[i].str, std::string(v->user),
                                                                   std::string(v->info_json)});
                }
                std::sort(result.clients.begin(), result.clients.end(),
                          [](const protocol::PresenceEntry& a, const protocol::PresenceEntry& b) {
                            return a.client < b.client;
                          });
              }
              reply(from, std::move(done), std::move(result));
            });
  });
}

redis::Command RedisBroker::presence_refresh(const std::string& name) const {
  return {"EVALSHA", redis_schema::kRefreshScript.sha(), "1",
          redis_schema::room_keys(cluster_.key_prefix, name).presence, ms(cluster_.presence_ttl)};
}

void RedisBroker::refresh_presence() {
  if (stopped_) return;
  // One pipeline (one round trip) per server for every room with local
  // entries there.
  std::vector<std::vector<redis::Command>> pipelines(router_->size());
  for (const auto& [name, room] : rooms_) {
    if (room.presence.empty()) continue;
    redis::Command cmd = presence_refresh(name);
    for (const auto& [client, body] : room.presence) {
      cmd.push_back(client);
      cmd.push_back(body);
    }
    pipelines[server_of(name)].push_back(std::move(cmd));
  }
  for (redis::Router::Server k = 0; k < pipelines.size(); ++k) {
    if (!pipelines[k].empty() && router_->ready(k))
      router_->execute_on(k, std::move(pipelines[k]), [](auto) {});
  }
  presence_timer_.expires_after(cluster_.presence_ttl / 3);
  presence_timer_.async_wait([this](boost::system::error_code ec) {
    if (!ec) refresh_presence();
  });
}

}  // namespace herald::gateway::broker
