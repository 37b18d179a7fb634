// Which Redis server a key's commands go to, and getting them there: the
// one place that knows a module's topology (topology.hpp). A module that
// keeps state in Redis (the cluster broker's rooms, the node registry, the
// keyword store's dictionaries) names a key and hands over a pipeline; the
// Router picks the server (the ring's for plain servers, the slot owner's
// in a Redis Cluster), sends it, and in a Redis Cluster follows the MOVED
// and ASK redirections a slot's migration answers with, up to
// max_redirects, before the caller sees the replies. So no module above
// this one knows what a slot, a ring or a redirection is.
//
// Why one class: the connections, the map from keys to them and the
// following of redirections change together. A MOVED updates the slot map
// and may name a master never seen (one added after start-up, a promoted
// replica), which then needs a connection and a wait for it to be ready
// before the command goes; the map may only point at servers the Router
// has a connection to.
//
// Redirections: each unit of a pipeline answered MOVED or ASK is sent
// again on its own (after ASKING for an ASK) while the pipeline's other
// replies wait; the caller gets every reply, in order, once the last one
// is final. A unit is one command (with the WAIT right after it, which
// must run where it ran), or a whole MULTI ... EXEC: Redis
// Cluster redirects a transaction's queued commands one by one and then
// aborts its EXEC, so the transaction is sent again whole (after one
// ASKING, which Redis keeps for the whole transaction). A MOVED moves the
// slot in the map and re-reads CLUSTER SLOTS (one read at a time), since a
// migration usually moves many slots. Each unit's keys must be in one
// slot, as Redis Cluster requires anyway.
//
// A master lost (Redis Cluster): its slots' commands fail at once (114)
// while its client reconnects, and no MOVED can come from a master that is
// gone; so while any master the map uses is down, the Router re-reads
// CLUSTER SLOTS from a live one (with the reconnect backoff), and moves the
// slots to whichever master the cluster promoted, connecting to it first
// if it is new. A master that owns no slot any more and is down is stopped
// (a dead or demoted node is not retried forever); a redirection to it
// starts it again.
//
// Sentinel: one server, whose address its Client asks of the Sentinels
// before every connect (sentinel.hpp).
//
// Threading: like Client, the Router belongs to one io_context run by one
// thread, and every member except the "any thread" ones runs there.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/time/backoff.hpp"
#include "redis/client.hpp"
#include "redis/hash_ring.hpp"
#include "redis/options.hpp"
#include "redis/sentinel.hpp"
#include "redis/topology.hpp"

namespace herald::redis {

class Router {
 public:
  // A server's index: stable for the Router's life (servers are only ever
  // added, when a redirection names a new master).
  using Server = std::size_t;
  using ServerFn = std::function<void(Server)>;

  // `connection` is how each server is reached (its host and port are
  // replaced by each server's). For a Redis Cluster the slot map is read
  // from topology.address now, blocking up to connect_timeout; throws
  // std::runtime_error naming `<section>.address` or `<section>.password`
  // and the reason when it cannot be.
  Router(boost::asio::io_context& io, Topology topology, Options connection);
  ~Router();
  Router(const Router&) = delete;
  Router& operator=(const Router&) = delete;

  // Set before start(): called each time a server's connections are up
  // (after every reconnect), and once per loss of them.
  void on_ready(ServerFn fn) { on_ready_ = std::move(fn); }
  void on_down(ServerFn fn) { on_down_ = std::move(fn); }
  // Before start(): a channel whose messages must reach this process
  // whichever server publishes them. Plain servers each keep their own
  // pub/sub, so it is subscribed on every one; a Redis Cluster forwards
  // every PUBLISH to every node, so one master (its slot's) suffices.
  void subscribe_everywhere(const std::string& channel, const Client::MessageFn& on_message);

  void start();
  void stop();

  // The server holding `key` (in a Redis Cluster: as far as this Router
  // knows; a redirection corrects it).
  [[nodiscard]] Server server_of(std::string_view key) const;
  // Sends `pipeline` to the server of `key` (execute_on), after the
  // commands of its slot sent before (see Order above).
  void execute(std::string_view key, std::vector<Command> pipeline, Client::Done done);
  // Sends `pipeline` to `server` as one round trip, and follows the
  // redirections of its replies (see above) before `done` runs. An error
  // reply stands for a redirection that could not be followed (past
  // max_redirects, or a master not ready within command_timeout).
  void execute_on(Server server, std::vector<Command> pipeline, Client::Done done);
  // The client of `server`, for pub/sub on the server of a key (join,
  // leave). The reference stays valid for the Router's life.
  [[nodiscard]] Client& client(Server server) { return *clients_[server]; }
  [[nodiscard]] std::size_t size() const { return clients_.size(); }
  // A Redis Cluster: slots route keys, and a master that goes down may be
  // replaced by another (a failover) rather than come back.
  [[nodiscard]] bool slotted() const { return !slot_owner_.empty(); }

  // Any thread.
  [[nodiscard]] bool ready(Server server) const;
  [[nodiscard]] bool all_ready() const;
  // Polls all_ready() until true or `timeout` passes; false at once when a
  // server refuses the credentials (refusal()).
  [[nodiscard]] bool wait_ready(std::chrono::milliseconds timeout) const;
  // While some server refuses the credentials: why (Client::refusal), for
  // the first such server.
  [[nodiscard]] std::optional<std::string> refusal() const;
  // Round trips over every server (Client::round_trips).
  [[nodiscard]] std::uint64_t round_trips() const;

 private:
  struct ReadyWait;
  // A slot whose owner changed while commands of it may still be in flight
  // to the old one (`from`): later commands of the slot wait in `held`
  // until `from` has completed `until` commands (see Order above).
  struct Fence {
    Server from = 0;
    std::uint64_t until = 0;
    std::deque<std::pair<std::vector<Command>, Client::Done>> held;
  };
  // Commands [first, first + count) of a pipeline, redirected together.
  struct Unit {
    std::size_t first;
    std::size_t count;
  };

  // The pipeline cut into units: single commands, and MULTI ... EXEC blocks.
  [[nodiscard]] static std::vector<Unit> units_of(const std::vector<Command>& pipeline);
  // `answers` are what `from` replied to `unit`: a redirection among them
  // is followed (`hop` counts those followed so far) until final replies
  // go to `reply`.
  void redirect(std::vector<Command> unit, Server from, std::vector<Reply> answers,
                std::uint32_t hop, std::function<void(std::vector<Reply>)> reply);
  // Re-reads CLUSTER SLOTS from `server` (one read at a time) and moves
  // every slot to its master, connecting to masters not met before.
  void refresh_slots(Server server);
  // While a master that owns slots is down: refresh_slots from a live one,
  // again after the backoff until none is (see "A master lost" above).
  void watch_lost_masters();
  // Per server: whether the slot map gives it any slot.
  [[nodiscard]] std::vector<bool> owners() const;
  // The server at `address`; nullopt if the Router has no client for it.
  [[nodiscard]] std::optional<Server> server_at(const config::Endpoint& address) const;
  // A client for `address`, appended (not started).
  Server add_server(const config::Endpoint& address);
  // Runs `send` once `server` is ready (at once if it is), or `fail` after
  // command_timeout without it.
  void when_ready(Server server, std::function<void()> send, std::function<void(std::string)> fail);
  void became_ready(Server server);
  // slot_owner_[slot] = to, fenced while commands sent to the old owner are
  // still unanswered.
  void move_slot(std::size_t slot, Server to);
  // After a command to `server` completed: the fences it lifts, and their
  // held commands sent.
  void lift_fences(Server server);

  boost::asio::io_context& io_;
  const Topology topology_;
  const Options connection_;
  // Grows on the io thread only (a master first met in a redirection);
  // other threads read it under clients_mutex_.
  std::vector<std::unique_ptr<Client>> clients_;
  mutable std::mutex clients_mutex_;
  std::vector<config::Endpoint> addresses_;  // clients_[k]'s address
  // Per server: sends waiting for it to be ready (when_ready).
  std::vector<std::vector<std::shared_ptr<ReadyWait>>> waiting_;
  std::unique_ptr<HashRing> ring_;         // Kind::servers
  std::vector<std::uint16_t> slot_owner_;  // Kind::cluster: slot -> server
  bool refreshing_slots_ = false;
  // Kind::cluster, per server: execute_on calls sent, and completed (their
  // replies in and their redirections sent on).
  std::vector<std::uint64_t> sent_, completed_;
  std::unordered_map<std::size_t, Fence> fences_;          // by slot; usually empty
  std::unique_ptr<boost::asio::steady_timer> lost_timer_;  // Kind::cluster: watch_lost_masters
  Backoff lost_backoff_;
  std::unique_ptr<Sentinel> sentinel_;  // Kind::sentinel
  ServerFn on_ready_;
  ServerFn on_down_;
};

}  // namespace herald::redis
