#include "redis/router.hpp"

#include <boost/asio/steady_timer.hpp>

#include <algorithm>
#include <thread>

#include "core/log.hpp"
#include "redis/cluster_slots.hpp"

namespace herald::redis {
namespace {

// An error reply made here, for a command that could not be sent where
// Redis redirected it.
Reply error_reply(std::string text) {
  Reply e;
  e.type = Reply::Type::error;
  e.str = std::move(text);
  return e;
}

}  // namespace

// A send waiting for a server's connection: whichever comes first,
// readiness or the timeout, runs; the other finds `done` set.
struct Router::ReadyWait {
  explicit ReadyWait(boost::asio::io_context& io) : timer(io) {}
  boost::asio::steady_timer timer;
  std::function<void()> send;
  bool done = false;
};

Router::Router(boost::asio::io_context& io, Topology topology, Options connection)
    : io_(io),
      topology_(std::move(topology)),
      connection_(std::move(connection)),
      lost_backoff_(connection_.reconnect_min, connection_.reconnect_max) {
  std::vector<config::Endpoint> servers = topology_.servers;
  if (topology_.kind == Topology::Kind::cluster) {
    // The masters come from the cluster itself.
    SlotMap map = discover_slots(topology_.address, connection_.credentials,
                                 connection_.connect_timeout, topology_.section);
    servers = std::move(map.masters);
    slot_owner_ = std::move(map.owner);
    lost_timer_ = std::make_unique<boost::asio::steady_timer>(io_);
  }
  if (topology_.kind == Topology::Kind::sentinel) {
    sentinel_ = std::make_unique<Sentinel>(io_, topology_.sentinels, topology_.master_name,
                                           connection_.connect_timeout, topology_.section);
    // Named in messages until located; the Client asks before connecting.
    servers = {config::Endpoint{"master '" + topology_.master_name + "'", 0}};
  }
  if (servers.empty()) servers.push_back(topology_.address);
  std::vector<std::string> names;
  for (const auto& address : servers) {
    names.push_back(address.to_string());
    add_server(address);
  }
  ring_ = std::make_unique<HashRing>(names);
}

Router::~Router() = default;

Router::Server Router::add_server(const config::Endpoint& address) {
  Options o = connection_;
  o.host = address.host;
  o.port = address.port;
  if (sentinel_) {
    o.locate = [this](std::function<void(Located)> done) { sentinel_->locate(std::move(done)); };
  }
  const Server k = clients_.size();
  auto client = std::make_unique<Client>(io_, o);
  client->on_ready([this, k] { became_ready(k); });
  client->on_down([this, k](const std::string&) {
    if (lost_timer_) watch_lost_masters();
    if (on_down_) on_down_(k);
  });
  std::lock_guard lock(clients_mutex_);
  addresses_.push_back(address);
  clients_.push_back(std::move(client));
  waiting_.emplace_back();
  sent_.push_back(0);
  completed_.push_back(0);
  return k;
}

void Router::subscribe_everywhere(const std::string& channel, const Client::MessageFn& on_message) {
  if (topology_.kind == Topology::Kind::cluster) {
    clients_[server_of(channel)]->subscribe(channel, on_message);
    return;
  }
  for (auto& c : clients_) c->subscribe(channel, on_message);
}

void Router::start() {
  for (auto& c : clients_) c->start();
}

void Router::stop() {
  if (lost_timer_) lost_timer_->cancel();
  for (auto& c : clients_) c->stop();
}

Router::Server Router::server_of(std::string_view key) const {
  if (slot_owner_.empty()) return ring_->server_of(hash_tag(key));
  return slot_owner_[key_slot(key)];
}

bool Router::ready(Server server) const {
  std::lock_guard lock(clients_mutex_);
  return server < clients_.size() && clients_[server]->ready();
}

bool Router::all_ready() const {
  std::lock_guard lock(clients_mutex_);
  return std::all_of(clients_.begin(), clients_.end(), [](const auto& c) { return c->ready(); });
}

bool Router::wait_ready(std::chrono::milliseconds timeout) const {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!all_ready()) {
    if (std::chrono::steady_clock::now() >= deadline || refusal()) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

std::optional<std::string> Router::refusal() const {
  std::lock_guard lock(clients_mutex_);
  for (const auto& c : clients_)
    if (auto why = c->refusal()) return why;
  return std::nullopt;
}

std::uint64_t Router::round_trips() const {
  std::lock_guard lock(clients_mutex_);
  std::uint64_t n = 0;
  for (const auto& c : clients_) n += c->round_trips();
  return n;
}

std::vector<Router::Unit> Router::units_of(const std::vector<Command>& pipeline) {
  std::vector<Unit> units;
  for (std::size_t i = 0; i < pipeline.size(); ++i) {
    std::size_t end = i + 1;
    if (!pipeline[i].empty() && pipeline[i][0] == "MULTI") {
      while (end < pipeline.size() &&
             !(pipeline[end - 1].size() == 1 && pipeline[end - 1][0] == "EXEC"))
        ++end;
    }
    // A WAIT waits for the writes of the unit before it, on the server
    // that ran them: it goes where that unit goes.
    while (end < pipeline.size() && !pipeline[end].empty() && pipeline[end][0] == "WAIT") ++end;
    units.push_back({i, end - i});
    i = end - 1;
  }
  return units;
}

void Router::execute(std::string_view key, std::vector<Command> pipeline, Client::Done done) {
  if (!slot_owner_.empty() && !fences_.empty()) {
    auto fence = fences_.find(key_slot(key));
    if (fence != fences_.end()) {
      fence->second.held.emplace_back(std::move(pipeline), std::move(done));
      return;
    }
  }
  execute_on(server_of(key), std::move(pipeline), std::move(done));
}

void Router::execute_on(Server server, std::vector<Command> pipeline, Client::Done done) {
  // Plain servers never redirect: no copy of the pipeline is kept.
  if (slot_owner_.empty()) return clients_[server]->execute(pipeline, std::move(done));
  auto kept = std::make_shared<const std::vector<Command>>(std::move(pipeline));
  ++sent_[server];
  clients_[server]->execute(*kept, [this, server, kept, done = std::move(done)](Result r) mutable {
    std::vector<Unit> redirected;
    if (r.ok()) {
      for (const Unit& u : units_of(*kept)) {
        for (std::size_t i = u.first; i < u.first + u.count; ++i) {
          if (parse_redirect(r.replies[i])) {
            redirected.push_back(u);
            break;
          }
        }
      }
    }
    if (redirected.empty()) {
      ++completed_[server];
      lift_fences(server);
      return done(std::move(r));
    }
    // The other replies stand; each redirected unit completes on its
    // own, and the last one to complete hands the whole result over.
    struct Pending {
      Result result;
      std::size_t left;
      Client::Done done;
    };
    auto pending =
        std::make_shared<Pending>(Pending{std::move(r), redirected.size(), std::move(done)});
    for (const Unit& u : redirected) {
      // Safety: unit bounds index a pipeline held in memory, far below
      // PTRDIFF_MAX (here and in the handler below).
      const auto from = static_cast<std::ptrdiff_t>(u.first);
      const auto to = static_cast<std::ptrdiff_t>(u.first + u.count);
      std::vector<Command> commands(kept->begin() + from, kept->begin() + to);
      std::vector<Reply> answers(std::make_move_iterator(pending->result.replies.begin() + from),
                                 std::make_move_iterator(pending->result.replies.begin() + to));
      redirect(std::move(commands), server, std::move(answers), 1,
               [pending, u](std::vector<Reply> final_replies) {
                 std::move(final_replies.begin(), final_replies.end(),
                           pending->result.replies.begin() + static_cast<std::ptrdiff_t>(u.first));
                 if (--pending->left == 0) pending->done(std::move(pending->result));
               });
    }
    // The redirections are sent on (or wait, in order, for their master's
    // connection): commands held behind this one may go.
    ++completed_[server];
    lift_fences(server);
  });
}

void Router::move_slot(std::size_t slot, Server to) {
  const Server from = slot_owner_[slot];
  if (from == to) return;
  // Safety: a server is added only as a slot's owner, so there are at most
  // kClusterSlots (16384) of them; the index fits 16 bits.
  slot_owner_[slot] = static_cast<std::uint16_t>(to);
  if (completed_[from] == sent_[from]) return;  // nothing in flight to the old owner
  Fence& fence = fences_[slot];
  fence.from = from;
  fence.until = sent_[from];
}

void Router::lift_fences(Server server) {
  if (fences_.empty()) return;
  std::vector<std::size_t> lifted;
  for (const auto& [slot, fence] : fences_)
    if (fence.from == server && completed_[server] >= fence.until) lifted.push_back(slot);
  for (std::size_t slot : lifted) {
    auto node = fences_.extract(slot);
    // In order; a command that finds its slot fenced again (moved once
    // more meanwhile) waits behind the new fence, still in order.
    for (auto& [pipeline, done] : node.mapped().held) {
      auto again = fences_.find(slot);
      if (again != fences_.end()) {
        again->second.held.emplace_back(std::move(pipeline), std::move(done));
      } else {
        execute_on(slot_owner_[slot], std::move(pipeline), std::move(done));
      }
    }
  }
}

void Router::redirect(std::vector<Command> unit, Server from, std::vector<Reply> answers,
                      std::uint32_t hop, std::function<void(std::vector<Reply>)> reply) {
  std::optional<Redirect> to;
  std::string said;  // the redirection's text, for messages
  for (const Reply& a : answers) {
    if ((to = parse_redirect(a))) {
      said = a.str;
      break;
    }
  }
  if (!to) return reply(std::move(answers));
  // Every reply of the unit becomes the same error: a transaction's
  // commands stand or fall together.
  auto fail = [n = answers.size()](const std::string& why) {
    return std::vector<Reply>(n, error_reply(why));
  };
  if (hop > topology_.max_redirects) {
    return reply(fail("redirected more than " + std::to_string(topology_.max_redirects) +
                      " times (" + topology_.section + ".max_redirects); last: " + said));
  }
  if (to->to.host.empty()) to->to.host = addresses_[from].host;
  Server target = 0;
  if (auto known = server_at(to->to)) {
    target = *known;
  } else {
    // A master that joined the cluster after start-up (or a promoted
    // replica): connected now, used once ready.
    log::info("redis: connecting to a master met in a redirection",
              {{"master", to->to.to_string()}, {"redirection", said}});
    target = add_server(to->to);
  }
  clients_[target]->start();  // a no-op unless new, or stopped as slotless (watch_lost_masters)
  const bool moved = to->kind == Redirect::Kind::moved;
  auto reply_ptr = std::make_shared<std::function<void(std::vector<Reply>)>>(std::move(reply));
  auto send = [this, unit = std::move(unit), target, hop, moved, reply_ptr, fail,
               slot = to->slot]() mutable {
    std::vector<Command> pipeline;
    if (moved) {
      // Moved once the new owner can take commands, so that no other
      // command of the slot goes to a master not yet connected.
      move_slot(slot, target);
      refresh_slots(target);
    } else {
      // One ASKING covers a whole MULTI/EXEC: Redis keeps the flag for
      // the transaction's commands.
      pipeline.push_back({"ASKING"});
    }
    const std::size_t skip = pipeline.size();
    pipeline.insert(pipeline.end(), unit.begin(), unit.end());
    clients_[target]->execute(pipeline, [this, unit = std::move(unit), target, hop, skip, reply_ptr,
                                         fail](Result r) mutable {
      if (!r.ok()) return (*reply_ptr)(fail(r.error));
      // Safety: skip is 0 or 1 (the ASKING in front).
      r.replies.erase(r.replies.begin(), r.replies.begin() + static_cast<std::ptrdiff_t>(skip));
      redirect(std::move(unit), target, std::move(r.replies), hop + 1, std::move(*reply_ptr));
    });
  };
  when_ready(target, std::move(send),
             [reply_ptr, fail, where = to->to.to_string(), said](const std::string& error) {
               (*reply_ptr)(fail(said + ": " + where + " " + error));
             });
}

void Router::when_ready(Server server, std::function<void()> send,
                        std::function<void(std::string)> fail) {
  if (clients_[server]->ready()) return send();
  auto& waiting = waiting_[server];
  // Timed-out waits leave now: the list holds live waits only, at most one
  // per command in flight.
  std::erase_if(waiting, [](const auto& w) { return w->done; });
  auto wait = std::make_shared<ReadyWait>(io_);
  wait->send = std::move(send);
  waiting.push_back(wait);
  wait->timer.expires_after(connection_.command_timeout);
  wait->timer.async_wait(
      [this, wait, server, fail = std::move(fail)](boost::system::error_code ec) {
        if (ec || wait->done) return;
        wait->done = true;
        fail("not connected within " + topology_.section + ".command_timeout (" +
             clients_[server]->last_error() + ")");
      });
}

void Router::became_ready(Server server) {
  // Commands redirected to this master while it was connecting go first.
  std::vector<std::shared_ptr<ReadyWait>> waiting = std::move(waiting_[server]);
  waiting_[server].clear();
  for (auto& w : waiting) {
    if (w->done) continue;
    w->done = true;
    w->timer.cancel();
    w->send();
  }
  if (on_ready_) on_ready_(server);
}

void Router::refresh_slots(Server server) {
  if (refreshing_slots_) return;
  refreshing_slots_ = true;
  clients_[server]->execute({{"CLUSTER", "SLOTS"}}, [this, server](Result r) {
    refreshing_slots_ = false;
    // Failed: the MOVED slot is moved already; others move on their own
    // MOVED, or at the next watch_lost_masters.
    if (!r.ok() || r.replies.empty()) return;
    auto map = parse_cluster_slots(r.replies[0]);
    if (!map) return;
    std::vector<Server> index;
    for (auto& m : map->masters) {
      if (m.host.empty()) m.host = addresses_[server].host;
      auto known = server_at(m);
      if (!known) {
        // A promoted replica, or a master added: connected now; its slots
        // fail fast (114) for the moment it takes.
        log::info("redis: connecting to a master named by the slot map",
                  {{"master", m.to_string()}});
        known = add_server(m);
      }
      clients_[*known]->start();
      index.push_back(*known);
    }
    std::size_t moved = 0;
    for (std::size_t slot = 0; slot < kClusterSlots; ++slot) {
      const Server k = index[map->owner[slot]];
      if (slot_owner_[slot] != k) {
        move_slot(slot, k);
        ++moved;
      }
    }
    // A master that lost every slot and is down (dead, or demoted to a
    // replica) is not retried; a redirection to it starts it again.
    const std::vector<bool> owns = owners();
    for (Server k = 0; k < clients_.size(); ++k) {
      if (!owns[k] && !clients_[k]->ready()) clients_[k]->stop();
    }
    log::info("redis: slot map re-read",
              {{"from", addresses_[server].to_string()}, {"slots_moved", moved}});
  });
}

std::vector<bool> Router::owners() const {
  std::vector<bool> owns(clients_.size(), false);
  for (const auto k : slot_owner_) owns[k] = true;
  return owns;
}

void Router::watch_lost_masters() {
  if (lost_timer_->expiry() > boost::asio::steady_timer::clock_type::now()) return;  // armed
  const std::vector<bool> owns = owners();
  std::optional<Server> live;
  bool lost = false;
  for (Server k = 0; k < clients_.size(); ++k) {
    if (owns[k] && !clients_[k]->ready()) lost = true;
    if (clients_[k]->ready() && !live) live = k;
  }
  if (!lost) return lost_backoff_.reset();
  if (live) refresh_slots(*live);
  lost_timer_->expires_after(lost_backoff_.next());
  lost_timer_->async_wait([this](boost::system::error_code ec) {
    if (ec) return;
    // Expired: the guard above lets this call through.
    watch_lost_masters();
  });
}

std::optional<Router::Server> Router::server_at(const config::Endpoint& address) const {
  for (Server k = 0; k < addresses_.size(); ++k)
    if (addresses_[k] == address) return k;
  return std::nullopt;
}

}  // namespace herald::redis
