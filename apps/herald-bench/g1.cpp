// G1: zero loss under reconnect churn. Loss is counted from the publishers'
// own record (the offsets the server acknowledged to them), never from the
// server's counters: a subscriber must hold every acknowledged offset of its
// room after the position where it first subscribed.
#include <boost/asio/steady_timer.hpp>
#include <fmt/format.h>

#include <memory>
#include <random>
#include <vector>

#include "conn.hpp"
#include "parse.hpp"
#include "scenarios.hpp"

namespace herald::bench {
namespace asio = boost::asio;
using std::chrono::milliseconds;

namespace {

struct Subscriber {
  explicit Subscriber(asio::io_context& ctx) : reconnect_timer(ctx) {}
  unsigned room = 0;
  unsigned node = 0;  // G3: the node of the current connection
  std::shared_ptr<Conn> conn;
  bool opening = false;     // the current connection has not finished its handshake
  bool subscribed = false;  // the current connection's subscribe was answered
  bool started = false;     // the first subscribe was answered
  std::string epoch;
  std::uint64_t start_top = 0;  // responsible for every offset after this
  std::uint64_t last = 0;       // highest offset received
  std::vector<std::uint8_t> seen;
  std::uint64_t duplicates = 0;
  std::uint64_t out_of_order = 0;
  std::uint64_t recovered_false = 0;
  std::uint64_t recoveries = 0;
  std::uint64_t reconnects = 0;
  std::uint64_t errors = 0;
  asio::steady_timer reconnect_timer;
};

struct Publisher {
  explicit Publisher(asio::io_context& ctx) : timer(ctx) {}
  std::shared_ptr<Conn> conn;
  unsigned node = 0;
  unsigned opens = 0;
  // G3: publishes sent on a connection that died before their ack (their
  // outcome is unknown: published or not); counted apart from loss.
  std::uint64_t unknown = 0;
  bool down = false;  // between its connection's death and the reopen
  std::vector<unsigned> rooms;
  std::size_t next_room = 0;
  std::uint32_t next_id = 10;
  std::vector<unsigned> room_of_id;  // by command id
  std::uint64_t sent = 0;
  std::uint64_t acked = 0;
  std::uint64_t errors = 0;
  asio::steady_timer timer;
  std::chrono::steady_clock::time_point next_at;
};

class G1 {
 public:
  G1(const G1Options& o, std::vector<Target*> targets, int kill)
      : o_(o),
        target_(*targets.at(0)),
        targets_(std::move(targets)),
        alive_(targets_.size(), true),
        kill_node_(kill),
        progress_(ctx_),
        end_(ctx_),
        kill_timer_(ctx_) {
    for (Target* t : targets_)
      endpoints_.emplace_back(asio::ip::make_address("127.0.0.1"), t->port());
  }

  Report run(bool& ok);

 private:
  std::string room_name(unsigned r) const { return "g1:r" + std::to_string(r); }
  bool cluster() const { return targets_.size() > 1; }
  // The first live node from k on (round robin over the nodes).
  unsigned pick(unsigned k) const {
    for (unsigned j = 0; j < targets_.size(); ++j) {
      const unsigned n = (k + j) % static_cast<unsigned>(targets_.size());
      if (alive_[n]) return n;
    }
    return 0;
  }
  double cpu_all() const {
    double c = killed_cpu_;
    for (std::size_t n = 0; n < targets_.size(); ++n)
      if (alive_[n]) c += targets_[n]->cpu_seconds();
    return c;
  }
  double round_trips() const {
    double rt = killed_round_trips_;
    for (std::size_t n = 0; n < targets_.size(); ++n)
      if (alive_[n])
        rt += scrape_metric(targets_[n]->port(), "herald_cluster_redis_round_trips_total");
    return rt;
  }
  std::string server_name() const {
    return cluster() ? "heraldd x" + std::to_string(targets_.size()) + " (cluster)"
                     : target_.name();
  }
  void open_subscriber(unsigned i);
  void on_sub_message(unsigned i, std::string_view line);
  void mark(Subscriber& s, std::uint64_t offset, bool live, std::int64_t sent_ns);
  void schedule_reconnect(unsigned i, milliseconds after);
  void open_publisher(unsigned p);
  void publish_tick(unsigned p);
  void print_progress();
  bool all_delivered() const;

  const G1Options& o_;
  Target& target_;
  std::vector<Target*> targets_;
  std::vector<asio::ip::tcp::endpoint> endpoints_;
  std::vector<bool> alive_;
  int kill_node_ = -1;
  double killed_cpu_ = 0;
  double killed_round_trips_ = 0;
  asio::io_context ctx_{1};
  std::vector<std::unique_ptr<Subscriber>> subs_;
  std::vector<std::unique_ptr<Publisher>> pubs_;
  std::vector<std::vector<std::uint8_t>> acked_;  // room -> offset -> acknowledged
  std::vector<std::uint64_t> acked_count_;
  Latencies latency_;
  asio::steady_timer progress_;
  asio::steady_timer end_;
  asio::steady_timer kill_timer_;
  std::mt19937 rng_{12345};
  bool publishing_ = false;
  bool churning_ = false;
  bool draining_ = false;
  unsigned opening_ = 0;  // handshakes in flight during the ramp
  unsigned started_subs_ = 0;
  std::uint64_t delivered_ = 0;
  std::uint64_t conn_failures_ = 0;
  std::chrono::steady_clock::time_point t0_;
  double cpu0_ = 0, self_cpu0_ = 0;
  MachineCpu machine0_;
};

void G1::open_subscriber(unsigned i) {
  Subscriber& s = *subs_[i];
  s.subscribed = false;
  s.opening = true;
  ++opening_;
  Conn::Callbacks cb;
  auto opened = [this, i] {
    if (!subs_[i]->opening) return;
    subs_[i]->opening = false;
    --opening_;
  };
  cb.on_open = opened;
  cb.on_message = [this, i](std::string_view line) { on_sub_message(i, line); };
  cb.on_closed = [this, i, opened](const std::string& error) {
    if (error.empty()) return;  // we dropped it on purpose
    opened();
    ++conn_failures_;
    subs_[i]->subscribed = false;
    schedule_reconnect(i, milliseconds(100));  // lost: come back and recover
  };
  s.node = pick(i + static_cast<unsigned>(s.reconnects));
  s.conn = std::make_shared<Conn>(ctx_, endpoints_[s.node], std::move(cb));
  std::string cmd = R"({"id":1,"connect":{"user":"s)" + std::to_string(i) +
                    R"("}})"
                    "\n" +
                    R"({"id":2,"subscribe":{"room":")" + room_name(s.room) + "\"";
  if (s.started) {
    cmd += R"(,"since":{"epoch":")" + s.epoch + R"(","offset":)" + std::to_string(s.last) + "}";
  }
  cmd += "}}";
  s.conn->send(std::move(cmd));
  s.conn->open();
}

void G1::mark(Subscriber& s, std::uint64_t offset, bool live, std::int64_t sent_ns) {
  if (offset >= s.seen.size()) s.seen.resize(std::max<std::size_t>(offset + 1, s.seen.size() * 2));
  if (s.seen[offset]) {
    ++s.duplicates;
    return;
  }
  if (offset < s.last) ++s.out_of_order;
  s.seen[offset] = 1;
  s.last = std::max(s.last, offset);
  if (offset > s.start_top) ++delivered_;
  if (live && sent_ns > 0) latency_.add(now_ns() - sent_ns);
}

void G1::on_sub_message(unsigned i, std::string_view line) {
  Subscriber& s = *subs_[i];
  if (line.starts_with(R"({"pub":)")) {
    std::size_t end = 0;
    auto offset = uint_after(line, R"("offset":)", 0, &end);
    auto t = uint_after(line, R"("t":)", end);
    if (offset) mark(s, *offset, true, t ? static_cast<std::int64_t>(*t) : 0);
    return;
  }
  if (line.starts_with(R"({"id":2,"result")")) {
    auto epoch = string_after(line, R"("epoch":")");
    std::size_t end = 0;
    auto top = uint_after(line, R"("offset":)", 0, &end);
    if (!epoch || !top) {
      ++s.errors;
      return;
    }
    if (!s.started) {
      s.started = true;
      s.epoch = std::string(*epoch);
      s.start_top = *top;
      s.last = *top;
      ++started_subs_;
    } else {
      ++s.recoveries;
      if (line.find(R"("recovered":true)") == std::string_view::npos) ++s.recovered_false;
      // The missed publications, in order.
      auto pubs = line.find(R"("publications":[)");
      std::size_t pos = pubs == std::string_view::npos ? line.size() : pubs;
      while (true) {
        auto off = uint_after(line, R"("offset":)", pos, &end);
        if (!off) break;
        auto t = uint_after(line, R"("t":)", end);
        mark(s, *off, false, t ? static_cast<std::int64_t>(*t) : 0);
        pos = end;
      }
    }
    s.subscribed = true;
    return;
  }
  if (line.find(R"("error")") != std::string_view::npos) ++s.errors;
}

void G1::schedule_reconnect(unsigned i, milliseconds after) {
  Subscriber& s = *subs_[i];
  s.reconnect_timer.expires_after(after);
  s.reconnect_timer.async_wait([this, i](boost::system::error_code ec) {
    if (ec) return;
    Subscriber& sub = *subs_[i];
    if (sub.subscribed) {
      if (!churning_) return;
      sub.conn->drop();  // the churn: lose the connection, come back, recover
      ++sub.reconnects;
      open_subscriber(i);
      schedule_reconnect(i, o_.reconnect_every);
    } else if (!sub.opening && !sub.conn->is_open()) {
      open_subscriber(i);  // it was lost: come back
      if (churning_) schedule_reconnect(i, o_.reconnect_every);
    } else {
      schedule_reconnect(i, milliseconds(50));  // still subscribing: look again soon
    }
  });
}

void G1::open_publisher(unsigned p) {
  Publisher& pub = *pubs_[p];
  Conn::Callbacks cb;
  cb.on_message = [this, p](std::string_view line) {
    Publisher& pb = *pubs_[p];
    auto id = uint_after(line, R"({"id":)");
    if (!id || *id < 10 || *id >= pb.room_of_id.size() + 10) return;
    if (line.find(R"("result")") == std::string_view::npos) {
      ++pb.errors;
      return;
    }
    auto offset = uint_after(line, R"("offset":)");
    if (!offset) return;
    unsigned room = pb.room_of_id[*id - 10];
    auto& a = acked_[room];
    if (*offset >= a.size()) a.resize(std::max<std::size_t>(*offset + 1, a.size() * 2));
    if (!a[*offset]) {
      a[*offset] = 1;
      ++acked_count_[room];
    }
    ++pb.acked;
  };
  cb.on_closed = [this, p](const std::string& error) {
    if (error.empty()) return;
    ++conn_failures_;
    if (!cluster()) return;
    // Its node died: what was in flight has an unknown outcome; go on
    // through another node.
    Publisher& pb = *pubs_[p];
    pb.unknown = pb.sent - pb.acked - pb.errors;
    pb.down = true;
    asio::post(ctx_, [this, p] { open_publisher(p); });
  };
  pub.node = pick(p + pub.opens++);
  pub.down = false;
  pub.conn = std::make_shared<Conn>(ctx_, endpoints_[pub.node], std::move(cb));
  pub.conn->send(R"({"id":1,"connect":{"user":"pub)" + std::to_string(p) + R"("}})");
  pub.conn->open();
}

void G1::publish_tick(unsigned p) {
  Publisher& pub = *pubs_[p];
  if (!publishing_) return;
  if (!pub.down) {
    unsigned room = pub.rooms[pub.next_room];
    pub.next_room = (pub.next_room + 1) % pub.rooms.size();
    std::uint32_t id = pub.next_id++;
    pub.room_of_id.push_back(room);
    pub.conn->send(R"({"id":)" + std::to_string(id) + R"(,"publish":{"room":")" + room_name(room) +
                   R"(","data":{"t":)" + std::to_string(now_ns()) + "}}}");
    ++pub.sent;
  }
  // Fixed rate without drift: the next tick is due one interval after this
  // one was due, not after it ran.
  auto interval = std::chrono::nanoseconds(
      static_cast<std::int64_t>(1e9 * static_cast<double>(pubs_.size()) / o_.rate));
  pub.next_at += interval;
  pub.timer.expires_at(pub.next_at);
  pub.timer.async_wait([this, p](boost::system::error_code ec) {
    if (!ec) publish_tick(p);
  });
}

bool G1::all_delivered() const {
  for (const auto& s : subs_) {
    std::uint64_t want = 0, have = 0;
    const auto& a = acked_[s->room];
    for (std::size_t off = s->start_top + 1; off < a.size(); ++off) {
      if (!a[off]) continue;
      ++want;
      if (off < s->seen.size() && s->seen[off]) ++have;
    }
    if (have < want) return false;
  }
  return true;
}

void G1::print_progress() {
  if (o_.quiet) return;
  double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
  std::uint64_t sent = 0, acked = 0, reconnects = 0, dups = 0, ooo = 0;
  for (const auto& p : pubs_) sent += p->sent, acked += p->acked;
  for (const auto& s : subs_)
    reconnects += s->reconnects, dups += s->duplicates, ooo += s->out_of_order;
  unsigned open = 0;
  for (const auto& s : subs_) open += s->conn && s->conn->is_open() ? 1 : 0;
  fmt::print(stderr,
             "[g1 {}] t={:.0f}s subscribers={}/{} sent={} acked={} delivered={} dup={} "
             "out_of_order={} reconnects={} p99={:.2f}ms server_cpu={:.1f}s\n",
             server_name(), t, open, subs_.size(), sent, acked, delivered_, dups, ooo, reconnects,
             latency_.quantile_ms(0.99), cpu_all() - cpu0_);
}

Report G1::run(bool& ok) {
  acked_.resize(o_.rooms);
  acked_count_.resize(o_.rooms, 0);
  for (unsigned i = 0; i < o_.subscribers; ++i) {
    subs_.push_back(std::make_unique<Subscriber>(ctx_));
    subs_.back()->room = i % o_.rooms;
  }
  for (unsigned p = 0; p < o_.publishers; ++p) {
    pubs_.push_back(std::make_unique<Publisher>(ctx_));
    for (unsigned r = p; r < o_.rooms; r += o_.publishers) pubs_.back()->rooms.push_back(r);
    if (pubs_.back()->rooms.empty()) pubs_.back()->rooms.push_back(p % o_.rooms);
  }
  t0_ = std::chrono::steady_clock::now();

  // Ramp: open subscribers with at most 256 handshakes in flight.
  unsigned next = 0;
  std::function<void()> ramp = [&] {
    while (next < subs_.size() && opening_ < 256) open_subscriber(next++);
    if (next < subs_.size() || started_subs_ < subs_.size()) {
      progress_.expires_after(milliseconds(5));
      progress_.async_wait([&](boost::system::error_code) { ramp(); });
    } else {
      ctx_.stop();
    }
  };
  ramp();
  auto ramp_deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (!ctx_.stopped() && std::chrono::steady_clock::now() < ramp_deadline)
    ctx_.run_for(milliseconds(200));
  ctx_.restart();
  if (started_subs_ < subs_.size()) {
    fmt::print(stderr, "[g1] only {}/{} subscribers subscribed within 120 s\n", started_subs_,
               subs_.size());
  }
  if (!o_.quiet) {
    fmt::print(stderr, "[g1 {}] {} subscribers subscribed in {:.1f}s; publishing\n", server_name(),
               started_subs_,
               std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count());
  }

  for (unsigned p = 0; p < pubs_.size(); ++p) open_publisher(p);
  ctx_.run_for(milliseconds(200));  // let publishers connect
  ctx_.restart();

  t0_ = std::chrono::steady_clock::now();
  cpu0_ = cpu_all();
  const double rt0 = cluster() ? round_trips() : 0;
  self_cpu0_ = self_cpu_seconds();
  machine0_ = machine_cpu();
  publishing_ = true;
  churning_ = true;
  for (unsigned p = 0; p < pubs_.size(); ++p) {
    pubs_[p]->next_at = std::chrono::steady_clock::now();
    publish_tick(p);
  }
  std::uniform_int_distribution<std::int64_t> phase(1, o_.reconnect_every.count());
  for (unsigned i = 0; i < subs_.size(); ++i) schedule_reconnect(i, milliseconds(phase(rng_)));

  std::function<void()> tick = [&] {
    print_progress();
    progress_.expires_after(std::chrono::seconds(1));
    progress_.async_wait([&](boost::system::error_code ec) {
      if (!ec) tick();
    });
  };
  progress_.expires_after(std::chrono::seconds(1));
  progress_.async_wait([&](boost::system::error_code ec) {
    if (!ec) tick();
  });
  if (kill_node_ >= 0) {
    kill_timer_.expires_after(o_.duration / 2);
    kill_timer_.async_wait([this](boost::system::error_code ec) {
      if (ec) return;
      const auto k = static_cast<std::size_t>(kill_node_);
      killed_round_trips_ =
          scrape_metric(targets_[k]->port(), "herald_cluster_redis_round_trips_total");
      killed_cpu_ = targets_[k]->cpu_seconds();
      targets_[k]->kill();
      alive_[k] = false;
      if (!o_.quiet) fmt::print(stderr, "[g3] node {} SIGKILLed\n", k);
    });
  }
  end_.expires_after(o_.duration);
  end_.async_wait([&](boost::system::error_code) { ctx_.stop(); });
  ctx_.run();
  ctx_.restart();

  // Stop publishing and churning; wait for every ack and every delivery.
  publishing_ = false;
  churning_ = false;
  draining_ = true;
  for (auto& p : pubs_) p->timer.cancel();
  for (auto& s : subs_) s->reconnect_timer.cancel();  // no churn in the drain
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
  const double server_cpu = cpu_all() - cpu0_;
  const double bench_cpu = self_cpu_seconds() - self_cpu0_;
  const double machine_busy = machine_busy_percent(machine0_, machine_cpu());
  const auto& o = o_;
  auto drain_deadline = std::chrono::steady_clock::now() + o_.drain;
  auto acks_done = [&] {
    for (const auto& p : pubs_)
      if (p->acked + p->errors + p->unknown < p->sent) return false;
    return true;
  };
  while (std::chrono::steady_clock::now() < drain_deadline && !(acks_done() && all_delivered())) {
    ctx_.run_for(milliseconds(100));
    ctx_.restart();
    // Reconnect anyone who is down, so recovery can complete.
    for (unsigned i = 0; i < subs_.size(); ++i) {
      auto& s = *subs_[i];
      if (s.conn && !s.opening && !s.conn->is_open()) open_subscriber(i);
    }
  }
  const bool drained = acks_done() && all_delivered();
  print_progress();

  // Tally from the publishers' record.
  std::uint64_t expected = 0, delivered = 0, dups = 0, ooo = 0, rec_false = 0, recoveries = 0,
                reconnects = 0, sub_errors = 0, unexpected = 0;
  for (const auto& s : subs_) {
    const auto& a = acked_[s->room];
    for (std::size_t off = s->start_top + 1; off < std::max(a.size(), s->seen.size()); ++off) {
      bool want = off < a.size() && a[off];
      bool have = off < s->seen.size() && s->seen[off];
      expected += want;
      delivered += want && have;
      unexpected += have && !want;
    }
    dups += s->duplicates;
    ooo += s->out_of_order;
    rec_false += s->recovered_false;
    recoveries += s->recoveries;
    reconnects += s->reconnects;
    sub_errors += s->errors;
  }
  std::uint64_t sent = 0, acked = 0, pub_errors = 0, unknown = 0;
  for (const auto& p : pubs_)
    sent += p->sent, acked += p->acked, pub_errors += p->errors, unknown += p->unknown;
  const double round_trips_run = cluster() ? round_trips() - rt0 : 0;
  const std::uint64_t lost = expected - delivered;

  Report r;
  r.add("scenario", std::string(cluster() ? "G3" : "G1"));
  r.add("server", server_name());
  if (cluster()) {
    r.add("nodes", static_cast<std::uint64_t>(targets_.size()));
    r.add("killed_node", kill_node_ >= 0 ? std::to_string(kill_node_) : std::string("none"));
  }
  r.add("subscribers", static_cast<std::uint64_t>(o_.subscribers));
  r.add("rooms", static_cast<std::uint64_t>(o_.rooms));
  r.add("publishers", static_cast<std::uint64_t>(o_.publishers));
  r.add("rate_per_s", o_.rate);
  r.add("duration_s", elapsed);
  // false: the drain deadline passed with acknowledgements or deliveries
  // still in flight, so "lost" may count messages that were only late.
  r.add("drained", std::string(drained ? "yes" : "no"));
  r.add("reconnect_every_s", std::chrono::duration<double>(o_.reconnect_every).count());
  r.add("published", sent);
  r.add("acknowledged", acked);
  r.add("publish_errors", pub_errors);
  if (cluster()) {
    // In flight on the killed node: maybe published, never acknowledged.
    // Subscribers may hold them; they are not counted as expected.
    r.add("publishes_unknown_outcome", unknown);
    r.add("redis_round_trips", round_trips_run);
    // Every round trip of the run (subscribes, recoveries, presence,
    // heartbeats included) over the publications acknowledged; a publish
    // alone is one (pinned in tests/cluster/cluster_test.cpp).
    r.add("redis_round_trips_per_publish",
          acked ? round_trips_run / static_cast<double>(acked) : 0.0);
  }
  r.add("expected", expected);
  r.add("delivered", delivered);
  r.add("lost", lost);
  r.add("loss_percent",
        expected ? 100.0 * static_cast<double>(lost) / static_cast<double>(expected) : 0.0);
  r.add("duplicates", dups);
  r.add("out_of_order", ooo);
  r.add("unexpected", unexpected);
  r.add("reconnects", reconnects);
  r.add("recoveries", recoveries);
  r.add("recovered_false", rec_false);
  r.add("connection_failures", conn_failures_);
  r.add("subscriber_errors", sub_errors);
  r.add("latency_samples", static_cast<std::uint64_t>(latency_.count()));
  r.add("latency_p50_ms", latency_.quantile_ms(0.5));
  r.add("latency_p99_ms", latency_.quantile_ms(0.99));
  r.add("latency_max_ms", latency_.max_ms());
  r.add("server_cpu_s", server_cpu);
  r.add("server_cpu_percent", 100.0 * server_cpu / elapsed);
  r.add("bench_cpu_percent", 100.0 * bench_cpu / elapsed);
  r.add("machine_busy_percent", machine_busy);
  r.add("saturated",
        saturation(bench_cpu / elapsed, server_cpu / elapsed, o.server_threads, machine_busy));
  // G3: offsets nobody acknowledged may reach subscribers only when a
  // node died with publishes in flight.
  const bool unexpected_ok = unexpected == 0 || (cluster() && unknown > 0);
  ok = drained && lost == 0 && dups == 0 && rec_false == 0 && ooo == 0 && unexpected_ok &&
       started_subs_ == subs_.size() && sent > 0 && acked + unknown == sent;
  return r;
}

}  // namespace

Report run_g1(const G1Options& options, Target& target, bool& ok) {
  G1 g(options, {&target}, -1);
  return g.run(ok);
}

Report run_g3(const G1Options& options, std::vector<Target*> nodes, unsigned kill, bool& ok) {
  G1 g(options, std::move(nodes), static_cast<int>(kill));
  return g.run(ok);
}

}  // namespace herald::bench
