// G1: zero loss under reconnect churn. Loss is counted from the publishers'
// own record (the positions the server acknowledged to them), never from the
// server's counters: a subscriber must hold every acknowledged publication of
// its room after the position where it first subscribed, exactly once and in
// order, unless it was *told* it would not (G3 with the Redis master killed:
// a stream reset, 3005, and a resubscribe answered recovered:false).
//
// Positions are (epoch, offset): a Redis failover gives a room a new epoch
// whose offsets may reuse ones the old epoch acknowledged, so every record
// here is kept per epoch. Each publication also carries its number `n`, so
// that whatever a subscriber is shown can be traced to its publish: shown at
// the position it was acknowledged at, or refused with 114 (which does not
// say it was not committed), or in flight on a node that died.
#include <boost/asio/steady_timer.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <ctime>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <regex>
#include <vector>

#include "conn.hpp"
#include "parse.hpp"
#include "scenarios.hpp"

namespace herald::bench {
namespace asio = boost::asio;
using std::chrono::milliseconds;

namespace {

template <typename T>
std::vector<T>& grown(std::vector<std::vector<T>>& v, std::size_t i) {
  if (i >= v.size()) v.resize(i + 1);
  return v[i];
}
template <typename T>
void grow(std::vector<T>& v, std::size_t i) {
  if (i >= v.size()) v.resize(std::max<std::size_t>(i + 1, v.size() * 2));
}

// An error message with its numbers blanked, so that errors of one kind
// count together.
// Milliseconds since local midnight (Redis stamps its log lines in local
// time, to the millisecond).
std::int64_t ms_of_day(std::chrono::system_clock::time_point t) {
  const std::time_t secs = std::chrono::system_clock::to_time_t(t);
  std::tm tm{};
  localtime_r(&secs, &tm);
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()) %
                  std::chrono::seconds(1);
  return ((tm.tm_hour * 60 + tm.tm_min) * 60 + tm.tm_sec) * 1000LL + ms.count();
}

// When (ms after the kill, given as ms of the day) the Sentinel's log first
// says `event` ("+switch-master"), or nullopt.
std::optional<double> sentinel_event_ms(const std::string& log, const std::string& event,
                                        std::int64_t kill_ms_of_day) {
  const std::regex line(R"((\d\d):(\d\d):(\d\d)\.(\d\d\d) . \)" + event + " ");
  std::smatch m;
  if (!std::regex_search(log, m, line)) return std::nullopt;
  const std::int64_t at =
      ((std::stoll(m[1]) * 60 + std::stoll(m[2])) * 60 + std::stoll(m[3])) * 1000 +
      std::stoll(m[4]);
  std::int64_t d = at - kill_ms_of_day;
  if (d < -12 * 3600 * 1000LL) d += 24 * 3600 * 1000LL;  // past midnight
  return static_cast<double>(d);
}

std::string kind_of(std::string_view line) {
  auto m = string_after(line, R"("message":")");
  std::string k;
  for (char c : m.value_or("")) {
    if (std::isdigit(static_cast<unsigned char>(c)) != 0) {
      if (k.empty() || k.back() != '#') k += '#';
    } else {
      k += c;
    }
    if (k.size() >= 160) break;
  }
  return k;
}

// "count x kind; ..." of the `most` most frequent kinds.
std::string top_kinds(const std::map<std::string, std::uint64_t>& kinds, std::size_t most) {
  std::vector<std::pair<std::uint64_t, std::string>> v;
  for (const auto& [k, n] : kinds) v.emplace_back(n, k);
  std::sort(v.rbegin(), v.rend());
  std::string out;
  for (std::size_t i = 0; i < v.size() && i < most; ++i)
    out += (i ? "; " : "") + std::to_string(v[i].first) + " x \"" + v[i].second + "\"";
  return out.empty() ? "none" : out;
}

// A run of the stream a subscriber was shown as continuous: begun by its
// first subscribe, or by a resubscribe that answered recovered:false (told).
struct Segment {
  unsigned epoch = 0;       // index into the room's epochs
  std::uint64_t start = 0;  // responsible for the epoch's offsets after this
  bool told = false;
  std::int64_t at_ns = 0;  // when it began
};

struct Subscriber {
  explicit Subscriber(asio::io_context& ctx) : reconnect_timer(ctx), retry_timer(ctx) {}
  unsigned room = 0;
  unsigned node = 0;  // G3: the node of the current connection
  std::shared_ptr<Conn> conn;
  bool opening = false;     // the current connection has not finished its handshake
  bool subscribed = false;  // the current connection's subscribe was answered
  bool started = false;     // the first subscribe was answered
  unsigned epoch = 0;       // the current segment's epoch (index into the room's)
  std::uint64_t last = 0;   // highest offset received in it
  std::vector<Segment> segments;
  std::vector<std::vector<std::uint8_t>> seen;  // epoch -> offset -> shown
  std::uint64_t duplicates = 0;
  std::uint64_t out_of_order = 0;
  // A publication (or a recovered:true) of another epoch than the one the
  // subscriber follows, with nobody saying so: a silent break.
  std::uint64_t silent_epoch = 0;
  // recovered:false that still carried publications.
  std::uint64_t bad_recoveries = 0;
  std::uint64_t recovered_false = 0;
  std::uint64_t recoveries = 0;
  std::uint64_t reconnects = 0;
  std::uint64_t resets = 0;       // closed by the server with 3005
  std::uint64_t unavailable = 0;  // subscribes answered 114 (retried)
  std::uint64_t errors = 0;
  std::uint64_t subscribes_sent = 0;  // on every connection, retries too
  std::string last_reply;             // the last line that was not a publication
  asio::steady_timer reconnect_timer;
  asio::steady_timer retry_timer;
};

// One publish: what became of it.
enum class Outcome : std::uint8_t {
  pending,
  acked,
  refused_114,  // unavailable; may have been committed all the same
  refused,      // any other error
  unknown,      // in flight on a connection that died (its node was killed)
};
struct Publication {
  unsigned room = 0;
  Outcome outcome = Outcome::pending;
  bool not_durable = false;  // the 114 was cluster.redis.wait_replicas's
  bool shown = false;        // some subscriber was shown it
  unsigned epoch = 0;
  std::uint64_t offset = 0;
  std::int64_t sent_ns = 0;
};

// A room's epochs as the bench met them, and per epoch and offset when it
// was acknowledged and which publication subscribers were shown there.
struct RoomRecord {
  std::vector<std::string> epochs;
  std::vector<std::vector<std::int64_t>> acked_at;  // 0: not acknowledged
  std::vector<std::vector<std::uint32_t>> shown;    // 0: none shown yet
  std::uint64_t acked = 0;
  unsigned epoch_of(std::string_view id) {
    for (unsigned e = 0; e < epochs.size(); ++e)
      if (epochs[e] == id) return e;
    epochs.emplace_back(id);
    return static_cast<unsigned>(epochs.size() - 1);
  }
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
  std::vector<std::uint32_t> n_of_id;  // by command id - 10: the publication's number
  std::uint64_t sent = 0;
  std::uint64_t acked = 0;
  std::uint64_t refused_114 = 0;
  std::uint64_t not_durable = 0;  // of those, WAIT's (cluster.redis.wait_replicas)
  std::uint64_t errors = 0;       // any other error
  asio::steady_timer timer;
  std::chrono::steady_clock::time_point next_at;
};

// One subscriber's account at the end (or in the drain).
struct Tally {
  std::uint64_t expected = 0, delivered = 0, lost = 0;
  std::uint64_t told = 0;  // acknowledged, not received, told it would not be
  std::uint64_t unexpected = 0;
};

class G1 {
 public:
  G1(const G1Options& o, const G3Setup& setup)
      : o_(o),
        target_(*setup.nodes.at(0)),
        targets_(setup.nodes),
        setup_(setup),
        alive_(targets_.size(), true),
        kill_node_(setup.kill_node),
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
  // The Redis master is killed: subscribers may be told, publishes refused.
  bool redis_kill() const { return setup_.kill_redis != nullptr; }
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
  double redis_cpu() const {
    double c = killed_redis_cpu_;
    for (Target* t : setup_.redis)
      if (!(redis_killed_ && t == setup_.kill_redis)) c += t->cpu_seconds();
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
  double since_kill_ms(std::int64_t ns) const { return static_cast<double>(ns - kill_ns_) / 1e6; }
  std::string subscribe_command(unsigned i) const;
  void open_subscriber(unsigned i);
  void retry_subscribe(unsigned i);
  void on_sub_message(unsigned i, std::string_view line);
  // Parses one publication (a push, or an item of a recovery) at `from`
  // and marks it; returns where it ended, npos if there was none.
  std::size_t mark_at(unsigned i, std::string_view line, std::size_t from, bool live);
  void mark(Subscriber& s, unsigned epoch, std::uint64_t offset, std::uint32_t n, bool live,
            std::int64_t sent_ns);
  void schedule_reconnect(unsigned i, milliseconds after);
  void open_publisher(unsigned p);
  void on_pub_message(unsigned p, std::string_view line);
  void publish_tick(unsigned p);
  void kill_now();
  void cut_replica_link();
  // Which publications the rooms' histories in Redis hold now (the current
  // master's, read with LRANGE): acknowledged ones missing from them were
  // lost by Redis; refused ones present were committed all the same. False
  // when they cannot be read.
  bool read_histories(std::uint64_t& acked_missing, std::uint64_t& refused_kept);
  void print_progress();
  Tally tally(const Subscriber& s) const;
  bool all_delivered() const;
  bool acks_done() const;

  const G1Options& o_;
  Target& target_;
  std::vector<Target*> targets_;
  const G3Setup& setup_;
  std::vector<asio::ip::tcp::endpoint> endpoints_;
  std::vector<bool> alive_;
  int kill_node_ = -1;
  double killed_cpu_ = 0;
  double killed_round_trips_ = 0;
  bool redis_killed_ = false;
  double killed_redis_cpu_ = 0;
  long long replica_behind_bytes_ = -1;                      // at the kill, read just before it
  std::int64_t kill_ns_ = 0;                                 // when the kill happened (0: not yet)
  std::int64_t kill_ms_of_day_ = 0;                          // the same, by the wall clock
  std::int64_t first_ack_after_kill_ns_ = 0;                 // of a publish sent after the kill
  std::int64_t first_refused_ns_ = 0, last_refused_ns_ = 0;  // 114s after the kill
  std::int64_t first_reset_ns_ = 0, last_reset_ns_ = 0;      // 3005s after the kill
  std::int64_t last_told_ns_ = 0;
  asio::io_context ctx_{1};
  std::vector<std::unique_ptr<Subscriber>> subs_;
  std::vector<std::unique_ptr<Publisher>> pubs_;
  std::vector<RoomRecord> rooms_;
  std::vector<Publication> publications_{1};  // by number; 0 is none
  std::uint64_t offset_conflicts_ = 0;        // two publications shown at one position
  std::uint64_t ack_conflicts_ = 0;           // two publishes acknowledged at one position
  std::uint64_t never_published_ = 0;         // shown with a number nobody published
  std::map<std::string, std::uint64_t> publish_refusals_, subscribe_refusals_;  // 114s by kind
  Latencies latency_;
  Latencies ack_latency_;
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
  double cpu0_ = 0, redis_cpu0_ = 0, self_cpu0_ = 0;
  MachineCpu machine0_;
};

std::string G1::subscribe_command(unsigned i) const {
  const Subscriber& s = *subs_[i];
  std::string cmd = R"({"id":2,"subscribe":{"room":")" + room_name(s.room) + "\"";
  if (s.started) {
    cmd += R"(,"since":{"epoch":")" + rooms_[s.room].epochs[s.epoch] + R"(","offset":)" +
           std::to_string(s.last) + "}";
  }
  return cmd + "}}";
}

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
    if (error == "closed by server (3005)") {
      // A stream reset: the resubscribe says whether continuity held.
      ++subs_[i]->resets;
      if (kill_ns_ != 0) {
        last_reset_ns_ = now_ns();
        if (first_reset_ns_ == 0) first_reset_ns_ = last_reset_ns_;
      }
    } else {
      ++conn_failures_;
    }
    subs_[i]->subscribed = false;
    schedule_reconnect(i, milliseconds(100));  // lost: come back and recover
  };
  s.node = pick(i + static_cast<unsigned>(s.reconnects));
  s.conn = std::make_shared<Conn>(ctx_, endpoints_[s.node], std::move(cb));
  s.conn->send(R"({"id":1,"connect":{"user":"s)" + std::to_string(i) +
               R"("}})"
               "\n" +
               subscribe_command(i));
  ++s.subscribes_sent;
  s.conn->open();
}

// A subscribe answered 114 (Redis unreachable: try again) is sent again on
// the same connection a little later, as a client would.
void G1::retry_subscribe(unsigned i) {
  Subscriber& s = *subs_[i];
  std::weak_ptr<Conn> conn = s.conn;
  s.retry_timer.expires_after(milliseconds(200));
  s.retry_timer.async_wait([this, i, conn](boost::system::error_code ec) {
    if (ec) return;
    Subscriber& sub = *subs_[i];
    auto c = conn.lock();
    if (!c || c != sub.conn || !c->is_open() || sub.subscribed) return;
    ++sub.subscribes_sent;
    c->send(subscribe_command(i));
  });
}

void G1::mark(Subscriber& s, unsigned epoch, std::uint64_t offset, std::uint32_t n, bool live,
              std::int64_t sent_ns) {
  const std::int64_t now = now_ns();
  if (epoch != s.epoch) {
    // Another epoch, and nobody said so: a break shown as continuous.
    ++s.silent_epoch;
    s.segments.push_back(Segment{epoch, offset > 0 ? offset - 1 : 0, false, now});
    s.epoch = epoch;
    s.last = offset > 0 ? offset - 1 : 0;
  }
  auto& seen = grown(s.seen, epoch);
  grow(seen, offset);
  if (seen[offset]) {
    ++s.duplicates;
    return;
  }
  if (offset < s.last) ++s.out_of_order;
  seen[offset] = 1;
  s.last = std::max(s.last, offset);
  ++delivered_;
  // Every subscriber of a room must be shown the same publication at a
  // position.
  auto& shown = grown(rooms_[s.room].shown, epoch);
  grow(shown, offset);
  if (n == 0 || n >= publications_.size()) {
    ++never_published_;
  } else {
    if (shown[offset] == 0)
      shown[offset] = n;
    else if (shown[offset] != n)
      ++offset_conflicts_;
    publications_[n].shown = true;
  }
  if (live && sent_ns > 0) latency_.add(now - sent_ns);
}

std::size_t G1::mark_at(unsigned i, std::string_view line, std::size_t from, bool live) {
  Subscriber& s = *subs_[i];
  std::size_t end = 0;
  auto offset = uint_after(line, R"("offset":)", from, &end);
  if (!offset) return std::string_view::npos;
  auto epoch = string_after(line, R"("epoch":")", end, &end);
  if (!epoch) return std::string_view::npos;
  auto t = uint_after(line, R"("t":)", end, &end);
  auto n = uint_after(line, R"("n":)", end, &end);
  mark(s, rooms_[s.room].epoch_of(*epoch), *offset, n ? static_cast<std::uint32_t>(*n) : 0, live,
       t ? static_cast<std::int64_t>(*t) : 0);
  return end;
}

void G1::on_sub_message(unsigned i, std::string_view line) {
  Subscriber& s = *subs_[i];
  if (line.starts_with(R"({"pub":)")) {
    mark_at(i, line, 0, true);
    return;
  }
  s.last_reply.assign(line.substr(0, 160));
  if (line.starts_with(R"({"id":2,"result")")) {
    auto epoch_text = string_after(line, R"("epoch":")");
    std::size_t end = 0;
    auto top = uint_after(line, R"("offset":)", 0, &end);
    if (!epoch_text || !top) {
      ++s.errors;
      return;
    }
    const unsigned epoch = rooms_[s.room].epoch_of(*epoch_text);
    const std::int64_t now = now_ns();
    const auto pubs = line.find(R"("publications":[)");
    const bool has_pubs = pubs != std::string_view::npos &&
                          line.find(R"("publications":[])") == std::string_view::npos;
    if (!s.started) {
      s.started = true;
      s.segments.push_back(Segment{epoch, *top, false, now});
      s.epoch = epoch;
      s.last = *top;
      ++started_subs_;
    } else {
      ++s.recoveries;
      if (line.find(R"("recovered":true)") == std::string_view::npos) {
        // Told: what it missed before now cannot be recovered. It follows
        // the stream from here, as strictly as before.
        ++s.recovered_false;
        if (has_pubs) ++s.bad_recoveries;
        s.segments.push_back(Segment{epoch, *top, true, now});
        s.epoch = epoch;
        s.last = *top;
        if (kill_ns_ != 0) last_told_ns_ = now;
      } else {
        if (epoch != s.epoch && !has_pubs) {
          // recovered:true, yet in another epoch
          ++s.silent_epoch;
          s.segments.push_back(Segment{epoch, *top, false, now});
          s.epoch = epoch;
          s.last = *top;
        }
        // The missed publications, in order (mark() counts another epoch).
        std::size_t pos = pubs == std::string_view::npos ? line.size() : pubs;
        while (pos != std::string_view::npos && pos < line.size())
          pos = mark_at(i, line, pos, false);
      }
    }
    s.subscribed = true;
    return;
  }
  if (line.starts_with(R"({"id":2,"error")")) {
    auto code = uint_after(line, R"("code":)");
    if (code && *code == 114) {
      ++s.unavailable;
      ++subscribe_refusals_[kind_of(line)];
      retry_subscribe(i);
    } else {
      ++s.errors;
    }
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

void G1::on_pub_message(unsigned p, std::string_view line) {
  Publisher& pb = *pubs_[p];
  auto id = uint_after(line, R"({"id":)");
  if (!id || *id < 10 || *id >= pb.n_of_id.size() + 10) return;
  Publication& pub = publications_[pb.n_of_id[*id - 10]];
  if (pub.outcome != Outcome::pending) return;
  const std::int64_t now = now_ns();
  if (line.find(R"("result")") == std::string_view::npos) {
    auto code = uint_after(line, R"("code":)");
    if (code && *code == 114) {
      pub.outcome = Outcome::refused_114;
      ++pb.refused_114;
      ++publish_refusals_[kind_of(line)];
      if (line.find("cluster.redis.wait_replicas") != std::string_view::npos) {
        pub.not_durable = true;
        ++pb.not_durable;
      }
      if (kill_ns_ != 0) {
        last_refused_ns_ = now;
        if (first_refused_ns_ == 0) first_refused_ns_ = now;
      }
    } else {
      pub.outcome = Outcome::refused;
      ++pb.errors;
    }
    return;
  }
  std::size_t end = 0;
  auto offset = uint_after(line, R"("offset":)", 0, &end);
  auto epoch_text = string_after(line, R"("epoch":")");
  if (!offset || !epoch_text) {
    pub.outcome = Outcome::refused;
    ++pb.errors;
    return;
  }
  RoomRecord& room = rooms_[pub.room];
  const unsigned epoch = room.epoch_of(*epoch_text);
  auto& a = grown(room.acked_at, epoch);
  grow(a, *offset);
  if (a[*offset] != 0) {
    ++ack_conflicts_;  // two publishes acknowledged at one position
  } else {
    a[*offset] = now;
    ++room.acked;
  }
  pub.outcome = Outcome::acked;
  pub.epoch = epoch;
  pub.offset = *offset;
  ++pb.acked;
  ack_latency_.add(now - pub.sent_ns);
  if (kill_ns_ != 0 && first_ack_after_kill_ns_ == 0 && pub.sent_ns > kill_ns_)
    first_ack_after_kill_ns_ = now;
}

void G1::open_publisher(unsigned p) {
  Publisher& pub = *pubs_[p];
  Conn::Callbacks cb;
  cb.on_message = [this, p](std::string_view line) { on_pub_message(p, line); };
  cb.on_closed = [this, p](const std::string& error) {
    if (error.empty()) return;
    ++conn_failures_;
    if (!cluster()) return;
    // Its node died: what was in flight has an unknown outcome; go on
    // through another node.
    Publisher& pb = *pubs_[p];
    for (std::uint32_t n : pb.n_of_id) {
      if (publications_[n].outcome != Outcome::pending) continue;
      publications_[n].outcome = Outcome::unknown;
      ++pb.unknown;
    }
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
    const auto n = static_cast<std::uint32_t>(publications_.size());
    const std::int64_t now = now_ns();
    publications_.push_back(Publication{room, Outcome::pending, false, false, 0, 0, now});
    pub.n_of_id.push_back(n);
    pub.conn->send(R"({"id":)" + std::to_string(id) + R"(,"publish":{"room":")" + room_name(room) +
                   R"(","data":{"t":)" + std::to_string(now) + R"(,"n":)" + std::to_string(n) +
                   "}}}");
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

// What a subscriber holds against what the publishers were acknowledged.
// An acknowledged publication after its first subscribe position is
// expected unless the subscriber was told it would not get it: it is not
// in the epoch and range of the last segment, and a told segment began at
// or past it in its epoch, or began after it was acknowledged.
Tally G1::tally(const Subscriber& s) const {
  Tally t;
  if (s.segments.empty()) return t;
  const Segment& first = s.segments.front();
  const Segment& last = s.segments.back();
  const RoomRecord& room = rooms_[s.room];
  for (unsigned e = 0; e < room.acked_at.size(); ++e) {
    const auto& a = room.acked_at[e];
    const std::vector<std::uint8_t>* seen = e < s.seen.size() ? &s.seen[e] : nullptr;
    for (std::size_t off = 0; off < a.size(); ++off) {
      if (a[off] == 0) continue;
      if (e == first.epoch && off <= first.start) continue;  // before it subscribed
      if (seen && off < seen->size() && (*seen)[off]) {
        ++t.expected;
        ++t.delivered;
        continue;
      }
      const bool owed = e == last.epoch && off > last.start;
      bool told = false;
      if (!owed) {
        for (const Segment& g : s.segments)
          if (g.told && ((g.epoch == e && off <= g.start) || g.at_ns > a[off])) told = true;
      }
      if (told) {
        ++t.told;
      } else {
        ++t.expected;
        ++t.lost;
      }
    }
  }
  for (unsigned e = 0; e < s.seen.size(); ++e) {
    const auto* a = e < room.acked_at.size() ? &room.acked_at[e] : nullptr;
    for (std::size_t off = 0; off < s.seen[e].size(); ++off)
      if (s.seen[e][off] && !(a && off < a->size() && (*a)[off] != 0)) ++t.unexpected;
  }
  return t;
}

bool G1::all_delivered() const {
  for (const auto& s : subs_)
    if (tally(*s).lost > 0) return false;
  return true;
}

bool G1::acks_done() const {
  for (std::size_t n = 1; n < publications_.size(); ++n)
    if (publications_[n].outcome == Outcome::pending) return false;
  return true;
}

void G1::print_progress() {
  if (o_.quiet) return;
  double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
  std::uint64_t sent = 0, acked = 0, refused = 0, reconnects = 0, dups = 0, ooo = 0, resets = 0,
                told = 0;
  for (const auto& p : pubs_) sent += p->sent, acked += p->acked, refused += p->refused_114;
  for (const auto& s : subs_) {
    reconnects += s->reconnects, dups += s->duplicates, ooo += s->out_of_order;
    resets += s->resets, told += s->recovered_false;
  }
  unsigned open = 0;
  for (const auto& s : subs_) open += s->conn && s->conn->is_open() ? 1 : 0;
  fmt::print(stderr,
             "[g1 {}] t={:.0f}s subscribers={}/{} sent={} acked={} refused114={} delivered={} "
             "dup={} out_of_order={} reconnects={} resets={} told={} p99={:.2f}ms "
             "server_cpu={:.1f}s\n",
             server_name(), t, open, subs_.size(), sent, acked, refused, delivered_, dups, ooo,
             reconnects, resets, told, latency_.quantile_ms(0.99), cpu_all() - cpu0_);
}

void G1::kill_now() {
  if (kill_node_ >= 0) {
    const auto k = static_cast<std::size_t>(kill_node_);
    killed_round_trips_ =
        scrape_metric(targets_[k]->port(), "herald_cluster_redis_round_trips_total");
    killed_cpu_ = targets_[k]->cpu_seconds();
    targets_[k]->kill();
    alive_[k] = false;
    kill_ns_ = now_ns();
    if (!o_.quiet) fmt::print(stderr, "[g3] node {} SIGKILLed\n", k);
    return;
  }
  Target& master = *setup_.kill_redis;
  // How far the replica was behind, just before: what a failover now may
  // lose (bytes of the replication stream). The replica is read first, so
  // this is an upper bound (the master may have gone on in between).
  if (setup_.replica != nullptr) {
    const long long at_replica =
        info_field(redis_ask(setup_.replica->port(), {"INFO", "replication"}, milliseconds(500)),
                   "slave_repl_offset:");
    const long long at_master =
        info_field(redis_ask(master.port(), {"INFO", "replication"}, milliseconds(500)),
                   "master_repl_offset:");
    if (at_master >= 0 && at_replica >= 0) replica_behind_bytes_ = at_master - at_replica;
  }
  killed_redis_cpu_ = master.cpu_seconds();
  master.kill();
  redis_killed_ = true;
  kill_ns_ = now_ns();
  kill_ms_of_day_ = ms_of_day(std::chrono::system_clock::now());
  if (!o_.quiet) {
    fmt::print(stderr,
               "[g3] Redis master ({}) SIGKILLed; the replica was at most {} bytes behind\n",
               master.port(), replica_behind_bytes_);
  }
}

void G1::cut_replica_link() {
  if (setup_.replica == nullptr) return;
  const std::string port = std::to_string(free_port());
  const std::string answer =
      redis_ask(setup_.replica->port(), {"REPLICAOF", "127.0.0.1", port}, milliseconds(1000));
  if (!o_.quiet) {
    fmt::print(stderr, "[g3] replica's link cut (REPLICAOF 127.0.0.1 {}): {}\n", port,
               answer.substr(0, answer.find('\r')));
  }
}

bool G1::read_histories(std::uint64_t& acked_missing, std::uint64_t& refused_kept) {
  std::uint16_t master = 0;
  for (Target* t : setup_.redis) {
    if (redis_killed_ && t == setup_.kill_redis) continue;
    if (redis_ask(t->port(), {"ROLE"}, milliseconds(1000)).starts_with("*3\r\n$6\r\nmaster")) {
      master = t->port();
      break;
    }
  }
  if (master == 0) return false;
  std::vector<std::uint8_t> kept(publications_.size(), 0);
  for (unsigned r = 0; r < rooms_.size(); ++r) {
    const std::string h = redis_ask(
        master, {"LRANGE", "herald:{" + room_name(r) + "}:h", "0", "-1"}, milliseconds(5000));
    if (h.empty()) return false;
    std::size_t pos = 0;
    while (auto n = uint_after(h, R"("n":)", pos, &pos))
      if (*n < kept.size()) kept[*n] = 1;
  }
  acked_missing = refused_kept = 0;
  for (std::size_t n = 1; n < publications_.size(); ++n) {
    const Outcome o = publications_[n].outcome;
    if (o == Outcome::acked && !kept[n]) ++acked_missing;
    if (o == Outcome::refused_114 && kept[n]) ++refused_kept;
  }
  return true;
}

Report G1::run(bool& ok) {
  rooms_.resize(o_.rooms);
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
  redis_cpu0_ = redis_cpu();
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
  asio::steady_timer cut_timer(ctx_);
  if (redis_kill() && setup_.cut_replica_before.count() > 0) {
    cut_timer.expires_after(o_.duration / 2 - setup_.cut_replica_before);
    cut_timer.async_wait([this](boost::system::error_code ec) {
      if (!ec) cut_replica_link();
    });
  }
  if (kill_node_ >= 0 || redis_kill()) {
    kill_timer_.expires_after(o_.duration / 2);
    kill_timer_.async_wait([this](boost::system::error_code ec) {
      if (!ec) kill_now();
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
  const double redis_cpu_run = redis_cpu() - redis_cpu0_;
  const double bench_cpu = self_cpu_seconds() - self_cpu0_;
  const double machine_busy = machine_busy_percent(machine0_, machine_cpu());
  const auto& o = o_;
  const auto drain_start = std::chrono::steady_clock::now();
  auto drain_deadline = drain_start + o_.drain;
  // Every subscriber subscribed again too: one left retrying would
  // otherwise pass with nothing owed to it.
  auto all_subscribed = [&] {
    for (const auto& s : subs_)
      if (!s->subscribed) return false;
    return true;
  };
  while (std::chrono::steady_clock::now() < drain_deadline &&
         !(acks_done() && all_delivered() && all_subscribed())) {
    ctx_.run_for(milliseconds(100));
    ctx_.restart();
    // Reconnect anyone who is down, so recovery can complete.
    for (unsigned i = 0; i < subs_.size(); ++i) {
      auto& s = *subs_[i];
      if (s.conn && !s.opening && !s.conn->is_open()) open_subscriber(i);
    }
  }
  const bool drained = acks_done() && all_delivered() && all_subscribed();
  std::uint64_t subscribed_at_end = 0;
  for (const auto& s : subs_) subscribed_at_end += s->subscribed ? 1 : 0;
  const double drain_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - drain_start).count();
  print_progress();
  // A subscriber left unsubscribed is the one figure the tallies cannot
  // explain: name a few, with what they last heard, for whoever reads a
  // failed run.
  unsigned named = 0;
  for (unsigned i = 0; i < subs_.size() && named < 5; ++i) {
    const Subscriber& s = *subs_[i];
    if (s.subscribed) continue;
    ++named;
    fmt::print(stderr,
               "[g1 {}] not subscribed at the end: subscriber {} (room {}, node {}), "
               "connection {}, {} subscribes sent, {} answered 114; last reply: {}\n",
               server_name(), i, room_name(s.room), s.node,
               s.opening                     ? "opening"
               : s.conn && s.conn->is_open() ? "open"
                                             : "closed",
               s.subscribes_sent, s.unavailable, s.last_reply.empty() ? "none" : s.last_reply);
  }

  // Tally from the publishers' record.
  std::uint64_t expected = 0, delivered = 0, lost = 0, told = 0, told_subs = 0, dups = 0, ooo = 0,
                rec_false = 0, recoveries = 0, reconnects = 0, sub_errors = 0, unexpected = 0,
                silent = 0, bad_recoveries = 0, resets = 0, sub_unavailable = 0;
  for (const auto& s : subs_) {
    const Tally t = tally(*s);
    expected += t.expected;
    delivered += t.delivered;
    lost += t.lost;
    told += t.told;
    unexpected += t.unexpected;
    bool was_told = false;
    for (const Segment& g : s->segments) was_told = was_told || g.told;
    told_subs += was_told ? 1 : 0;
    dups += s->duplicates;
    ooo += s->out_of_order;
    rec_false += s->recovered_false;
    recoveries += s->recoveries;
    reconnects += s->reconnects;
    sub_errors += s->errors;
    silent += s->silent_epoch;
    bad_recoveries += s->bad_recoveries;
    resets += s->resets;
    sub_unavailable += s->unavailable;
  }
  // Publications shown though not acknowledged, by what became of their
  // publish: refused with 114 (it may have been committed), in flight on a
  // killed node, or unexplained (acknowledged elsewhere, refused otherwise).
  std::uint64_t shown_114 = 0, shown_unknown = 0, shown_unexplained = never_published_;
  for (std::size_t n = 1; n < publications_.size(); ++n) {
    const Publication& p = publications_[n];
    if (!p.shown || p.outcome == Outcome::acked) continue;
    if (p.outcome == Outcome::refused_114)
      ++shown_114;
    else if (p.outcome == Outcome::unknown)
      ++shown_unknown;
    else
      ++shown_unexplained;
  }
  // ... and an acknowledged one shown at another position than its own.
  for (std::size_t r = 0; r < rooms_.size(); ++r) {
    for (unsigned e = 0; e < rooms_[r].shown.size(); ++e) {
      const auto& shown = rooms_[r].shown[e];
      for (std::size_t off = 0; off < shown.size(); ++off) {
        if (shown[off] == 0 || shown[off] >= publications_.size()) continue;
        const Publication& p = publications_[shown[off]];
        if (p.outcome == Outcome::acked && (p.epoch != e || p.offset != off)) ++shown_unexplained;
      }
    }
  }
  std::uint64_t sent = 0, acked = 0, pub_errors = 0, unknown = 0, refused_114 = 0, not_durable = 0;
  for (const auto& p : pubs_) {
    sent += p->sent, acked += p->acked, pub_errors += p->errors, unknown += p->unknown;
    refused_114 += p->refused_114, not_durable += p->not_durable;
  }
  std::uint64_t acked_missing = 0, refused_kept = 0;
  const bool histories = cluster() && read_histories(acked_missing, refused_kept);
  std::uint64_t epochs = 0;
  for (const auto& r : rooms_) epochs = std::max<std::uint64_t>(epochs, r.epochs.size());
  const double round_trips_run = cluster() ? round_trips() - rt0 : 0;

  Report r;
  r.add("scenario", std::string(cluster() ? "G3" : "G1"));
  r.add("server", server_name());
  if (cluster()) {
    r.add("nodes", static_cast<std::uint64_t>(targets_.size()));
    r.add("redis", setup_.redis_topology);
    r.add("wait_replicas", static_cast<std::uint64_t>(setup_.wait_replicas));
    r.add("killed", kill_node_ >= 0 ? "node " + std::to_string(kill_node_)
                    : redis_kill()  ? std::string("redis master")
                                    : std::string("none"));
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
  r.add("drain_s", drain_s);
  r.add("subscribed_at_end", subscribed_at_end);
  r.add("reconnect_every_s", std::chrono::duration<double>(o_.reconnect_every).count());
  r.add("published", sent);
  r.add("acknowledged", acked);
  // Refused with 114 (unavailable); with wait_replicas, not_durable of them
  // were WAIT's: in the stream, not confirmed by enough replicas.
  r.add("refused_114", refused_114);
  r.add("refused_114_not_durable", not_durable);
  r.add("refused_114_kinds", top_kinds(publish_refusals_, 4));
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
  if (kill_ns_ != 0) {
    // Outage: from the kill to the first acknowledgement of a publish sent
    // after it.
    if (first_ack_after_kill_ns_ != 0)
      r.add("outage_ms", since_kill_ms(first_ack_after_kill_ns_));
    else
      r.add("outage_ms", std::string("none: no publish sent after the kill was acknowledged"));
    if (first_refused_ns_ != 0) {
      r.add("refused_114_from_ms", since_kill_ms(first_refused_ns_));
      r.add("refused_114_until_ms", since_kill_ms(last_refused_ns_));
    }
    if (first_reset_ns_ != 0) {
      r.add("resets_from_ms", since_kill_ms(first_reset_ns_));
      r.add("resets_until_ms", since_kill_ms(last_reset_ns_));
    }
    if (last_told_ns_ != 0) r.add("last_told_ms", since_kill_ms(last_told_ns_));
    if (redis_kill())
      if (redis_kill() && setup_.sentinel != nullptr) {
        // The Sentinel's side of the outage: it marked the master down
        // (+odown), and named the replica the master (+switch-master).
        const std::string log = setup_.sentinel->output();
        for (const char* event : {"+odown", "+switch-master"}) {
          if (auto at = sentinel_event_ms(log, event, kill_ms_of_day_))
            r.add(std::string("sentinel_") + (event + 1) + "_ms", *at);
        }
      }
    r.add("replica_behind_bytes_at_kill_at_most", static_cast<double>(replica_behind_bytes_));
  }
  if (histories) {
    // Redis's own loss: acknowledged publications its histories no longer
    // hold (a failover of a replica that lacked them), and publications
    // refused with 114 that it holds all the same.
    r.add("acked_missing_from_history", acked_missing);
    r.add("refused_114_in_history", refused_kept);
  } else if (cluster()) {
    r.add("acked_missing_from_history", std::string("not read"));
  }
  if (redis_kill() && setup_.cut_replica_before.count() > 0)
    r.add("replica_link_cut_before_kill_ms",
          static_cast<double>(setup_.cut_replica_before.count()));
  r.add("epochs_per_room_max", epochs);
  r.add("expected", expected);
  r.add("delivered", delivered);
  r.add("lost", lost);
  r.add("loss_percent",
        expected ? 100.0 * static_cast<double>(lost) / static_cast<double>(expected) : 0.0);
  // Subscribers told (a resubscribe answered recovered:false), and the
  // acknowledged publications they had not received when told: not
  // expected of them, not lost.
  r.add("told_subscribers", told_subs);
  r.add("told_publications", told);
  r.add("duplicates", dups);
  r.add("out_of_order", ooo);
  r.add("silent_epoch_changes", silent);
  r.add("offset_conflicts", offset_conflicts_ + ack_conflicts_);
  r.add("unexpected", unexpected);
  r.add("shown_refused_114", shown_114);
  r.add("shown_unknown_outcome", shown_unknown);
  r.add("shown_unexplained", shown_unexplained);
  r.add("reconnects", reconnects);
  r.add("recoveries", recoveries);
  r.add("recovered_false", rec_false);
  r.add("recovered_false_with_publications", bad_recoveries);
  r.add("resets_3005", resets);
  r.add("subscribes_refused_114", sub_unavailable);
  r.add("subscribes_refused_114_kinds", top_kinds(subscribe_refusals_, 4));
  r.add("connection_failures", conn_failures_);
  r.add("subscriber_errors", sub_errors);
  r.add("latency_samples", static_cast<std::uint64_t>(latency_.count()));
  r.add("latency_p50_ms", latency_.quantile_ms(0.5));
  r.add("latency_p99_ms", latency_.quantile_ms(0.99));
  r.add("latency_max_ms", latency_.max_ms());
  // Publish to its acknowledgement (with wait_replicas, WAIT is in it).
  r.add("ack_latency_p50_ms", ack_latency_.quantile_ms(0.5));
  r.add("ack_latency_p99_ms", ack_latency_.quantile_ms(0.99));
  r.add("ack_latency_max_ms", ack_latency_.max_ms());
  r.add("server_cpu_s", server_cpu);
  r.add("server_cpu_percent", 100.0 * server_cpu / elapsed);
  if (!setup_.redis.empty()) r.add("redis_cpu_percent", 100.0 * redis_cpu_run / elapsed);
  r.add("bench_cpu_percent", 100.0 * bench_cpu / elapsed);
  r.add("machine_busy_percent", machine_busy);
  r.add("saturated",
        saturation(bench_cpu / elapsed, server_cpu / elapsed, o.server_threads, machine_busy));
  // Told subscribers and 114s are what a Redis failover may bring; with a
  // node killed (or nothing) there must be neither, as before.
  const bool failover = redis_kill();
  ok = drained && lost == 0 && dups == 0 && ooo == 0 && silent == 0 && bad_recoveries == 0 &&
       offset_conflicts_ == 0 && ack_conflicts_ == 0 && shown_unexplained == 0 &&
       (failover || (rec_false == 0 && refused_114 == 0)) && started_subs_ == subs_.size() &&
       sent > 0 && pub_errors == 0 && acked + unknown + refused_114 == sent &&
       // An acknowledged publication Redis lost: allowed only to a failover
       // without wait_replicas (its subscribers are told); otherwise the
       // acknowledgement promised it.
       (acked_missing == 0 || (failover && setup_.wait_replicas == 0));
  return r;
}

}  // namespace

Report run_g1(const G1Options& options, Target& target, bool& ok) {
  G3Setup one;
  one.nodes = {&target};
  G1 g(options, one);
  return g.run(ok);
}

Report run_g3(const G1Options& options, const G3Setup& setup, bool& ok) {
  G1 g(options, setup);
  return g.run(ok);
}

}  // namespace herald::bench
