#include "match/store/redis_store.hpp"

#include <boost/asio/post.hpp>

#include "core/log.hpp"
#include "core/random.hpp"

namespace herald::match::store {
namespace {

std::int64_t unix_ms_now() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

RedisStore::RedisStore(RedisStoreOptions options)
    : Store(options.limits),
      options_(std::move(options)),
      origin_(random::hex_id(16)),
      work_(io_.get_executor()),
      router_(std::make_unique<redis::Router>(io_, options_.topology, options_.redis)),
      backstop_(io_) {
  // A write is announced on the server holding its dictionary:
  // subscribe_everywhere hears every server's announcements.
  router_->subscribe_everywhere(options_.channel,
                                [this](std::string_view payload) { on_invalidation(payload); });
  // After every (re)connect: the subscription is live again, so any write
  // from now on will be announced; a write we missed meanwhile shows up as
  // a version that differs from ours.
  router_->on_ready([this](redis::Router::Server) { check_versions(); });
  boost::asio::post(io_, [this] {
    router_->start();
    arm_backstop();
  });
  thread_ = std::thread([this] { io_.run(); });
}

RedisStore::~RedisStore() {
  boost::asio::post(io_, [this] {
    stopping_ = true;
    backstop_.cancel();
    router_->stop();
    work_.reset();
  });
  // A build in flight finishes and posts its result, which is dropped.
  builder_.join();
  thread_.join();
}

bool RedisStore::wait_connected(std::chrono::milliseconds timeout) const {
  return router_->wait_ready(timeout);
}

schema::Origin RedisStore::make_origin() const {
  return schema::Origin{options_.channel, origin_, unix_ms_now()};
}

herald::Result<RedisStore::Dict*, std::string> RedisStore::dict_state(const std::string& name) {
  auto it = dicts_.find(name);
  if (it != dicts_.end() && it->second.slot) return &it->second;
  auto slot = table_.get_or_add(name);
  if (!slot) return std::move(slot).error();
  Dict& d = dicts_[name];  // or the state of a first read in flight, held from now on
  d.slot = std::move(slot).value();
  return &d;
}

void RedisStore::add_many(std::string dict, std::vector<Entry> entries, WriteFn done) {
  if (auto e = check_add(dict, entries)) return done(WriteResult{*e});
  redis::Command cmd =
      schema::add(schema::keys(options_.key_prefix, dict), make_origin(), dict, entries);
  write(std::move(dict), std::move(cmd), std::move(done),
        [entries = std::move(entries)](const Compiled& current) {
          std::vector<Entry> next = entries;  // first: Compiled::build keeps the first of equals
          next.insert(next.end(), current.entries().begin(), current.entries().end());
          return next;
        });
}

void RedisStore::remove_many(std::string dict, std::vector<std::string> keywords, WriteFn done) {
  if (auto e = check_remove(dict, keywords)) return done(WriteResult{*e});
  redis::Command cmd =
      schema::remove(schema::keys(options_.key_prefix, dict), make_origin(), dict, keywords);
  write(std::move(dict), std::move(cmd), std::move(done),
        [keywords = std::move(keywords)](const Compiled& current) {
          std::vector<std::string> gone = keywords;
          std::sort(gone.begin(), gone.end());
          std::vector<Entry> next;
          for (const Entry& e : current.entries()) {
            if (!std::binary_search(gone.begin(), gone.end(), e.keyword)) next.push_back(e);
          }
          return next;
        });
}

void RedisStore::flush(std::string dict, WriteFn done) {
  if (auto e = dictionary_name_error(dict)) return done(WriteResult{*e});
  redis::Command cmd = schema::flush(schema::keys(options_.key_prefix, dict), make_origin(), dict);
  write(std::move(dict), std::move(cmd), std::move(done),
        [](const Compiled&) { return std::vector<Entry>{}; });
}

void RedisStore::write(std::string dict, redis::Command command, WriteFn done,
                       std::function<std::vector<Entry>(const Compiled&)> apply) {
  boost::asio::post(io_, [this, dict = std::move(dict), command = std::move(command),
                          done = std::move(done), apply = std::move(apply)]() mutable {
    const std::string key = schema::keys(options_.key_prefix, dict).version;
    router_->execute(
        key, {std::move(command)},
        [this, dict, done = std::move(done), apply = std::move(apply)](redis::Result r) {
          if (!r.ok()) return done(WriteResult{.error = r.error, .unavailable = true});
          auto w = schema::parse_write(r.replies[0]);
          if (!w) return done(WriteResult{.error = w.error()});
          WriteResult result{.version = w->version,
                             .changed = static_cast<std::size_t>(w->changed)};
          auto it = dicts_.find(dict);
          // Not loaded here: nothing to refresh; a later load reads the write.
          if (w->changed == 0 || it == dicts_.end() || stopping_) return done(result);
          Dict& d = it->second;
          auto finish = [done, result](const LoadError&, const std::shared_ptr<const Compiled>&) {
            done(result);
          };
          std::shared_ptr<const Compiled> current = d.slot ? d.slot->engine.load() : nullptr;
          if (current && !d.loading && current->version() == w->old_version) {
            // Our copy is exactly the version the write started from: apply the
            // write to it here, with no round trip. Our own echo is ignored.
            d.loading = true;
            d.in_flight.push_back(std::move(finish));
            compile(dict, w->version, apply(*current));
          } else {
            // A peer wrote in between (or a load is in flight): read it all.
            d.next.push_back(std::move(finish));
            start_load(dict);
          }
        });
  });
}

void RedisStore::load(std::string dict, EngineFn done) {
  fetch(std::move(dict), true, std::move(done));
}

void RedisStore::read(std::string dict, EngineFn done) {
  fetch(std::move(dict), false, std::move(done));
}

void RedisStore::fetch(std::string dict, bool hold, EngineFn done) {
  if (auto e = dictionary_name_error(dict)) return done(EngineResult{.error = *e});
  boost::asio::post(io_, [this, dict = std::move(dict), hold, done = std::move(done)] {
    Dict* d = nullptr;
    if (hold) {
      auto held = dict_state(dict);
      if (!held) return done(EngineResult{.error = held.error()});
      d = *held;
    } else {
      d = &dicts_[dict];  // held, in flight, or a first read: no slot yet
    }
    if (d->slot) {
      if (auto e = d->slot->engine.load()) return done(EngineResult{.engine = std::move(e)});
    }
    Waiter waiter = [done](const LoadError& err, const std::shared_ptr<const Compiled>& engine) {
      if (engine) return done(EngineResult{.engine = engine});
      done(EngineResult{.error = err.message, .unavailable = err.unavailable});
    };
    if (d->loading) {
      d->in_flight.push_back(std::move(waiter));  // any snapshot will do for a cold load
    } else {
      d->next.push_back(std::move(waiter));
      start_load(dict);
    }
  });
}

void RedisStore::forget(const std::string& name) {
  auto it = dicts_.find(name);
  std::vector<Waiter> waiters = std::move(it->second.in_flight);
  dicts_.erase(it);
  const std::shared_ptr<const Compiled> empty = empty_engine();
  for (auto& w : waiters) w(LoadError{}, empty);
}

void RedisStore::start_load(const std::string& name) {
  Dict& d = dicts_.at(name);
  if (d.loading) {
    d.reload_again = true;
    return;
  }
  if (stopping_) return;
  d.loading = true;
  for (auto& w : d.next) d.in_flight.push_back(std::move(w));
  d.next.clear();
  const schema::Keys keys = schema::keys(options_.key_prefix, name);
  router_->execute(keys.version, schema::read(keys), [this, name](const redis::Result& r) {
    if (!r.ok()) return install(name, nullptr, {r.error, true});
    auto snap = schema::parse_read(r.replies);
    if (!snap) {
      stats_.rebuild_failures.fetch_add(1, std::memory_order_relaxed);
      return install(name, nullptr, {snap.error(), false});
    }
    Dict& state = dicts_.at(name);
    if (!state.slot) {
      // A first read of a dictionary not held: hold it if it
      // exists, or if anything about it happened meanwhile.
      const bool absent = snap->version == 0 && snap->entries.empty();
      if (absent && !state.reload_again && state.next.empty() && state.announced == 0)
        return forget(name);
      auto slot = table_.get_or_add(name);
      if (!slot) return install(name, nullptr, {slot.error(), false});
      state.slot = std::move(slot).value();
    }
    compile(name, snap->version, std::move(snap->entries));
  });
}

void RedisStore::compile(const std::string& name, std::uint64_t version,
                         std::vector<Entry> entries) {
  boost::asio::post(builder_, [this, name, version, entries = std::move(entries)]() mutable {
    auto built = build(version, std::move(entries));
    boost::asio::post(io_, [this, name, built = std::move(built)] {
      if (built) return install(name, *built, LoadError{});
      install(name, nullptr, {"rebuild failed: " + built.error(), false});
    });
  });
}

void RedisStore::install(const std::string& name, const std::shared_ptr<const Compiled>& engine,
                         const LoadError& error) {
  Dict& d = dicts_.at(name);
  d.loading = false;
  auto waiters = std::move(d.in_flight);
  d.in_flight.clear();
  if (engine) {
    // The one atomic step that publishes the new engine to searches.
    d.slot->engine.store(engine);
    if (d.announced > engine->version()) d.reload_again = true;
    d.announced = 0;
    if (d.invalidated_ms > 0 && !d.reload_again) {
      stats_.last_invalidation_lag_ms.store(
          std::max<std::int64_t>(0, unix_ms_now() - d.invalidated_ms), std::memory_order_relaxed);
      d.invalidated_ms = 0;
    }
    for (auto& w : waiters) w(LoadError{}, engine);
    if (d.reload_again) {
      d.reload_again = false;
      start_load(name);
    }
    return;
  }
  auto current = d.slot ? d.slot->engine.load() : nullptr;
  if (!stopping_ && d.slot)
    log::warn("keyword dictionary not refreshed",
              {{"dict", name},
               {"error", error.message},
               {"serving_version", current ? current->version() : std::uint64_t{0}},
               {"serving", current ? "last good engine" : "nothing (not loaded)"}});
  // Redis may be down: do not retry in a loop; the backstop and the
  // reconnect check retry. Whoever waited for a fresh load hears why now.
  d.reload_again = false;
  for (auto& w : d.next) waiters.push_back(std::move(w));
  d.next.clear();
  // A first read that failed keeps nothing: the next read tries again.
  if (!d.slot) dicts_.erase(name);
  for (auto& w : waiters) w(error, current);
}

void RedisStore::on_invalidation(std::string_view payload) {
  auto inv = schema::parse_invalidation(payload);
  if (!inv) {
    log::warn("malformed keyword invalidation ignored", {{"payload", payload}});
    return;
  }
  if (inv->origin == origin_) return;  // our own write, applied when it committed
  auto it = dicts_.find(inv->dict);
  if (it == dicts_.end()) return;  // not loaded here: a later load reads it fresh
  Dict& d = it->second;
  auto current = d.slot ? d.slot->engine.load() : nullptr;
  // Versions only grow (redis_schema.hpp), so an announced version at or
  // below ours is already served.
  if (!d.loading && current && current->version() >= inv->version) return;
  d.invalidated_ms = inv->unix_ms;
  stats_.invalidations.fetch_add(1, std::memory_order_relaxed);
  if (d.loading) {
    // The load in flight may have read before or after this write; install()
    // compares its version with the announced one and reloads only if older.
    d.announced = std::max(d.announced, inv->version);
    return;
  }
  start_load(inv->dict);
}

void RedisStore::check_versions() {
  if (stopping_ || dicts_.empty()) return;
  // One round trip per server for every loaded dictionary it holds (one in
  // all with one server): only version keys are read.
  std::map<redis::Router::Server, std::pair<std::vector<std::string>, std::vector<redis::Command>>>
      by_server;
  for (const auto& [name, d] : dicts_) {
    if (!d.slot) continue;  // a first read in flight: it reads the version anyway
    std::string key = schema::keys(options_.key_prefix, name).version;
    auto& [names, pipeline] = by_server[router_->server_of(key)];
    names.push_back(name);
    pipeline.push_back({"GET", std::move(key)});
  }
  for (auto& [server, batch] : by_server) {
    // A server not connected is checked again once it is (on_ready).
    if (!router_->ready(server)) continue;
    router_->execute_on(server, std::move(batch.second),
                        [this, names = std::move(batch.first)](const redis::Result& r) {
                          if (r.ok()) compare_versions(names, r);
                        });
  }
}

void RedisStore::compare_versions(const std::vector<std::string>& names, const redis::Result& r) {
  for (std::size_t i = 0; i < names.size(); ++i) {
    auto version = schema::parse_version(r.replies[i]);
    if (!version) continue;
    auto it = dicts_.find(names[i]);
    if (it == dicts_.end() || !it->second.slot) continue;
    Dict& d = it->second;
    auto current = d.slot->engine.load();
    if (!current && !d.loading) continue;  // never loaded (a failed cold load): nothing stale
    if (current && !d.loading && current->version() == *version) continue;
    stats_.invalidations.fetch_add(1, std::memory_order_relaxed);
    start_load(names[i]);
  }
}

void RedisStore::arm_backstop() {
  if (stopping_) return;
  backstop_.expires_after(options_.backstop_interval);
  backstop_.async_wait([this](boost::system::error_code ec) {
    if (ec || stopping_) return;
    check_versions();
    arm_backstop();
  });
}

}  // namespace herald::match::store
