// G2: fan-out throughput. Subscribers join their rooms, then publishers keep
// a fixed window of publications in flight (a new one for each
// acknowledgement) and the subscribers count what they receive. Reported:
// deliveries per second, and deliveries per second of server CPU, which is
// the per-core figure that compares servers of different thread counts.
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>
#include <fmt/format.h>

#include <array>
#include <memory>
#include <optional>
#include <vector>

#include "conn.hpp"
#include "parse.hpp"
#include "scenarios.hpp"

namespace herald::bench {
namespace asio = boost::asio;
using std::chrono::milliseconds;

namespace {

// heraldd's /metrics (the references have none: nullopt). Read before and
// after the window to report writes per delivered message, a structural
// count of the coalescing.
std::optional<std::string> scrape_metrics(std::uint16_t port) {
  try {
    asio::io_context ctx;
    asio::ip::tcp::socket s(ctx);
    s.connect({asio::ip::make_address("127.0.0.1"), port});
    std::string req = "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
    asio::write(s, asio::buffer(req));
    std::string out;
    boost::system::error_code ec;
    char buf[16384];
    for (;;) {
      std::size_t n = s.read_some(asio::buffer(buf), ec);
      out.append(buf, n);
      if (ec) break;
    }
    if (out.find(" 200 ") == std::string::npos) return std::nullopt;
    return out;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// A chat message's fields after "t" (the send time), about 300 bytes of
// JSON text: a user and a sentence picked by `n`, so consecutive
// publications differ as a room's messages do.
std::string chat_fields(std::uint64_t n) {
  static constexpr std::array<std::string_view, 8> kSentences = {
      "Is anyone going to the planning meeting this afternoon? I can share my notes.",
      "The build on the release branch is green again, thanks to everyone who helped.",
      "Lunch at the Italian place on the corner at half past twelve, who is in?",
      "Reminder: the quarterly review slides are due on Friday, please send yours early.",
      "I pushed the fix for the login timeout; can someone review it before the deploy?",
      "Coffee machine on the third floor is fixed, no more walking downstairs for it.",
      "Does anyone know why the staging database is slow today? Queries take seconds.",
      "Welcome to the team, Priya! Ask here if you need anything during your first week.",
  };
  const std::string_view a = kSentences[n % kSentences.size()];
  const std::string_view b = kSentences[(n / kSentences.size() + 3) % kSentences.size()];
  return fmt::format(
      R"(,"user":"user{}","text":"{} {}","sent_at":"2026-12-02T00:{:02}:{:02}Z","reply_to":{}}})",
      n % 97, a, b, (n / 60) % 60, n % 60, n % 5 == 0 ? std::to_string(n / 2) : "null");
}

// What G2's clients say in each protocol, and how they read the answers:
// the same load over either endpoint.
struct Wire {
  const G2Options& o;

  [[nodiscard]] bool centrifugo() const { return o.protocol == G2Options::Protocol::centrifugo; }
  [[nodiscard]] std::string path() const { return centrifugo() ? "/connection/websocket" : "/ws"; }
  [[nodiscard]] std::string connect(const std::string& user) const {
    if (centrifugo()) return R"({"id":1,"connect":{"token":")" + o.token + R"("}})";
    return R"({"id":1,"connect":{"user":")" + user + R"("}})";
  }
  // The field naming a room in a command.
  [[nodiscard]] std::string_view room_key() const { return centrifugo() ? "channel" : "room"; }
  [[nodiscard]] std::string subscribe(const std::string& room) const {
    return fmt::format(R"({{"id":2,"subscribe":{{"{}":"{}"}}}})", room_key(), room);
  }
  [[nodiscard]] std::string publish(std::uint32_t id, const std::string& room,
                                    const std::string& data) const {
    return fmt::format(R"({{"id":{},"publish":{{"{}":"{}","data":{}}}}})", id, room_key(), room,
                       data);
  }
  // A publication pushed to a subscriber.
  [[nodiscard]] bool is_pub(std::string_view line) const {
    if (!centrifugo()) return line.starts_with(R"({"pub":)");
    // {"push":{"channel":"g2:rN","pub":{...}}}: the key after the channel
    // (G2's room names hold no quote).
    constexpr std::string_view kChannel = R"({"push":{"channel":")";
    if (!line.starts_with(kChannel)) return false;
    const auto quote = line.find('"', kChannel.size());
    return quote != std::string_view::npos && line.substr(quote + 1).starts_with(R"(,"pub":)");
  }
  [[nodiscard]] bool is_subscribed(std::string_view line) const {
    return line.starts_with(centrifugo() ? R"({"id":2,"subscribe")" : R"({"id":2,"result")");
  }
  // A publish's acknowledgement (not an error).
  [[nodiscard]] bool is_ack(std::string_view line) const {
    return line.find(centrifugo() ? R"("publish")" : R"("result")") != std::string_view::npos;
  }
  // Centrifugo's keep-alive ping, which the client must answer ({}).
  [[nodiscard]] bool is_ping(std::string_view line) const { return centrifugo() && line == "{}"; }
};

double sample(const std::string& text, std::string_view series) {
  auto p = text.find("\n" + std::string(series) + " ");
  if (p == std::string::npos) return 0;
  return std::stod(text.substr(p + series.size() + 2));
}

}  // namespace

Report run_g2(const G2Options& o, Target& target, bool& ok) {
  asio::io_context ctx(1);
  asio::ip::tcp::endpoint server(asio::ip::make_address("127.0.0.1"), target.port());
  std::vector<std::shared_ptr<Conn>> subs;
  std::vector<std::shared_ptr<Conn>> pubs;
  std::uint64_t subscribed = 0, received = 0, failures = 0, acked = 0, sent = 0, pub_errors = 0;
  bool measuring = false;
  std::uint64_t received_in_window = 0;
  Latencies latency;
  const std::string payload(o.payload_bytes, 'x');
  auto room_name = [](unsigned r) { return "g2:r" + std::to_string(r); };
  const Wire wire{o};

  unsigned opening = 0, next = 0;
  auto open_sub = [&](unsigned i) {
    ++opening;
    Conn::Callbacks cb;
    auto done = std::make_shared<bool>(false);
    cb.on_open = [&, done] {
      if (!*done) *done = true, --opening;
    };
    auto self = std::make_shared<std::weak_ptr<Conn>>();
    cb.on_message = [&, self](std::string_view line) {
      if (wire.is_pub(line)) {
        ++received;
        if (measuring) {
          ++received_in_window;
          // Sample the latency of one delivery in 64 to keep the bench cheap.
          if ((received_in_window & 63) == 0) {
            auto t = uint_after(line, R"("t":)");
            if (t) latency.add(now_ns() - static_cast<std::int64_t>(*t));
          }
        }
      } else if (wire.is_subscribed(line)) {
        ++subscribed;
      } else if (wire.is_ping(line)) {
        if (auto c = self->lock()) c->send("{}");
      }
    };
    cb.on_closed = [&, done](const std::string& error) {
      if (!*done) *done = true, --opening;
      if (!error.empty()) ++failures;
    };
    auto c = std::make_shared<Conn>(ctx, server, std::move(cb), o.tls, o.compression, wire.path());
    *self = c;
    c->send(wire.connect("s" + std::to_string(i)) + "\n" + wire.subscribe(room_name(i % o.rooms)));
    c->open();
    subs.push_back(c);
  };
  asio::steady_timer timer(ctx);
  std::function<void()> ramp = [&] {
    while (next < o.subscribers && opening < 256) open_sub(next++);
    if (subscribed + failures < o.subscribers) {
      timer.expires_after(milliseconds(5));
      timer.async_wait([&](boost::system::error_code) { ramp(); });
    } else {
      ctx.stop();
    }
  };
  auto t_ramp = std::chrono::steady_clock::now();
  ramp();
  ctx.run_for(std::chrono::seconds(120));
  ctx.restart();
  if (!o.quiet) {
    fmt::print(stderr, "[g2 {}] {} subscribers subscribed in {:.1f}s\n", target.name(), subscribed,
               std::chrono::duration<double>(std::chrono::steady_clock::now() - t_ramp).count());
  }

  // Publishers: each keeps `window` publications in flight.
  std::vector<unsigned> next_room(o.publishers, 0);
  std::vector<std::uint32_t> next_id(o.publishers, 10);
  bool publishing = true;
  std::function<void(unsigned)> publish_one = [&](unsigned p) {
    if (!publishing) return;
    unsigned room = (next_room[p]++ * o.publishers + p) % o.rooms;
    const std::string fields = o.chat ? chat_fields(sent) : R"(,"x":")" + payload + "\"}";
    pubs[p]->send(wire.publish(next_id[p]++, room_name(room),
                               R"({"t":)" + std::to_string(now_ns()) + fields));
    ++sent;
  };
  for (unsigned p = 0; p < o.publishers; ++p) {
    Conn::Callbacks cb;
    cb.on_message = [&, p](std::string_view line) {
      if (wire.is_ping(line)) return pubs[p]->send("{}");
      if (!line.starts_with(R"({"id":)") || line.starts_with(R"({"id":1,)")) return;
      if (wire.is_ack(line)) {
        ++acked;
      } else {
        ++pub_errors;
      }
      publish_one(p);
    };
    cb.on_closed = [&](const std::string& error) {
      if (!error.empty()) ++failures;
    };
    auto c = std::make_shared<Conn>(ctx, server, std::move(cb), o.tls, o.compression, wire.path());
    c->send(wire.connect("pub" + std::to_string(p)));
    c->open();
    pubs.push_back(c);
  }
  ctx.run_for(milliseconds(300));
  ctx.restart();

  for (unsigned p = 0; p < o.publishers; ++p)
    for (unsigned w = 0; w < o.window; ++w) publish_one(p);
  ctx.run_for(o.warmup);
  ctx.restart();
  measuring = true;
  const auto metrics0 = scrape_metrics(target.port());
  const double cpu0 = target.cpu_seconds();
  const double self0 = self_cpu_seconds();
  const MachineCpu machine0 = machine_cpu();
  const auto t0 = std::chrono::steady_clock::now();
  std::uint64_t last_print = 0;
  while (std::chrono::steady_clock::now() - t0 < o.duration) {
    ctx.run_for(milliseconds(1000));
    ctx.restart();
    if (!o.quiet) {
      double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      fmt::print(stderr, "[g2 {}] t={:.0f}s delivered={} ({:.0f}/s) acked={} p99={:.2f}ms\n",
                 target.name(), t, received_in_window,
                 static_cast<double>(received_in_window - last_print), acked,
                 latency.quantile_ms(0.99));
      last_print = received_in_window;
    }
  }
  measuring = false;
  const auto metrics1 = scrape_metrics(target.port());
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double server_cpu = target.cpu_seconds() - cpu0;
  const double bench_cpu = self_cpu_seconds() - self0;
  const double machine_busy = machine_busy_percent(machine0, machine_cpu());
  publishing = false;
  ctx.run_for(milliseconds(500));  // let in-flight work settle before closing
  for (auto& c : subs) c->drop();
  for (auto& c : pubs) c->drop();

  const double rate = static_cast<double>(received_in_window) / elapsed;
  Report r;
  r.add("scenario", std::string("G2"));
  r.add("server", target.name());
  r.add("protocol", std::string(wire.centrifugo() ? "centrifugo" : "herald"));
  r.add("subscribers", static_cast<std::uint64_t>(o.subscribers));
  r.add("rooms", static_cast<std::uint64_t>(o.rooms));
  r.add("publishers", static_cast<std::uint64_t>(o.publishers));
  r.add("window", static_cast<std::uint64_t>(o.window));
  r.add("payload_bytes", static_cast<std::uint64_t>(o.payload_bytes));
  r.add("chat_payload", std::string(o.chat ? "yes" : "no"));
  r.add("compression", std::string(o.compression ? "permessage-deflate" : "none"));
  r.add("subscribed", subscribed);
  r.add("connection_failures", failures);
  r.add("publish_errors", pub_errors);
  r.add("duration_s", elapsed);
  r.add("delivered", received_in_window);
  r.add("delivered_per_s", rate);
  r.add("server_cpu_s", server_cpu);
  r.add("server_cpu_percent", 100.0 * server_cpu / elapsed);
  r.add("delivered_per_server_cpu_s",
        server_cpu > 0 ? static_cast<double>(received_in_window) / server_cpu : 0.0);
  r.add("server_cpu_us_per_delivery",
        received_in_window ? 1e6 * server_cpu / static_cast<double>(received_in_window) : 0.0);
  if (metrics0 && metrics1) {
    const double msgs = sample(*metrics1, "herald_messages_out_total") -
                        sample(*metrics0, "herald_messages_out_total");
    const double writes = sample(*metrics1, "herald_write_batches_total") -
                          sample(*metrics0, "herald_write_batches_total");
    r.add("server_messages_per_write", writes > 0 ? msgs / writes : 0.0);
    // Everything written to WebSocket clients (the publishers'
    // acknowledgements too) per delivered publication.
    const double bytes =
        sample(*metrics1, "herald_bytes_out_total") - sample(*metrics0, "herald_bytes_out_total");
    r.add("server_bytes_out_per_delivery",
          received_in_window ? bytes / static_cast<double>(received_in_window) : 0.0);
  }
  r.add("latency_p50_ms", latency.quantile_ms(0.5));
  r.add("latency_p99_ms", latency.quantile_ms(0.99));
  r.add("bench_cpu_percent", 100.0 * bench_cpu / elapsed);
  r.add("machine_busy_percent", machine_busy);
  r.add("saturated",
        saturation(bench_cpu / elapsed, server_cpu / elapsed, o.server_threads, machine_busy));
  ok = subscribed == o.subscribers && failures == 0 && received_in_window > 0;
  return r;
}

}  // namespace herald::bench
